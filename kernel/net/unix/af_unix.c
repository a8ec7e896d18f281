/* AF_UNIX sockets (Linux's net/unix/af_unix.c): socks and their lifetime, the sk_buffs of
 * their receive queues charged to their senders, socketpair, poll, shutdown, ioctl, options,
 * the proto_ops of each type and the family's registration. Sends and receives are
 * unix_msg.c's, names unix_addr.c's. */
#include "kernel/arch/uaccess.h"
#include "kernel/errno.h"
#include "kernel/fs/fs.h"
#include "kernel/fs/poll.h"
#include "kernel/lib/err.h"
#include "kernel/lib/string.h"
#include "kernel/net/scm.h"
#include "kernel/net/unix/af_unix.h"
#include "kernel/process/cred.h"
#include "kernel/sched/sched.h"
#include "kernel/signal/signal.h"
#include "kernel/initcall.h"
#include "mm/mmu.h"
#include "mm/slab.h"

#define FIONREAD 0x541b /* SIOCINQ */
#define SIOCOUTQ 0x5411

void sock_hold(struct sock *sk)
{
	sk->refcnt++;
}

void sock_put(struct sock *sk)
{
	struct sk_buff *skb;

	if (--sk->refcnt)
		return;
	while ((skb = skb_peek(sk))) { /* what came after its release */
		skb_unlink(sk, skb);
		unix_free_skb(skb);
	}
	kfree(sk->addr);
	kfree(sk);
}

void unix_current_cred(struct ucred *c)
{
	c->pid = current->tgid;
	c->uid = current->cred.euid;
	c->gid = current->cred.egid;
}

struct sock *unix_create1(struct socket *sock, int type)
{
	struct sock *sk = kzalloc(sizeof(*sk));

	if (!sk)
		return NULL;
	sk->refcnt = 1;
	sk->socket = sock;
	sk->type = type;
	sk->state = TCP_CLOSE;
	INIT_LIST_HEAD(&sk->receive_queue);
	INIT_LIST_HEAD(&sk->bound);
	init_waitqueue_head(&sk->wait);
	sk->max_ack_backlog = UNIX_MAX_DGRAM_QLEN;
	sk->sndbuf = UNIX_DEFAULT_BUF;
	sk->rcvbuf = UNIX_DEFAULT_BUF;
	sk->peercred.pid = 0;
	sk->peercred.uid = sk->peercred.gid = (uint32_t)-1; /* none until connected */
	if (sock)
		sock->sk = sk;
	return sk;
}

/* Linux's truesize: the head's slab object (a power of two, at least 512 bytes, holding the
 * head's bytes in 64-byte lines and skb_shared_info), struct sk_buff, and whole pages for the
 * fragments. */
static unsigned int skb_truesize(unsigned int len, unsigned int head)
{
	unsigned int need = ALIGN_UP(head, 64U) + SKB_SHINFO_SIZE, slab = 512;

	while (slab < need)
		slab <<= 1;
	return slab + SKB_STRUCT_SIZE + (unsigned int)ALIGN_UP(len - head, (unsigned int)PAGE_SIZE);
}

struct sk_buff *unix_alloc_skb(struct sock *sender, unsigned int len, unsigned int head)
{
	struct sk_buff *skb = kzalloc(sizeof(*skb) + len);

	if (!skb)
		return NULL;
	skb->len = len;
	skb->truesize = skb_truesize(len, head);
	skb->sk = sender;
	if (sender) {
		sock_hold(sender);
		sender->wmem_alloc += (int)skb->truesize;
		unix_current_cred(&skb->scm.creds);
		if (sender->addr) {
			skb->from = kmalloc(sizeof(*skb->from));
			if (skb->from)
				*skb->from = *sender->addr;
		}
	}
	return skb;
}

/* The buffer goes: its files let go of, its cost given back to its sender (who may write). */
void unix_free_skb(struct sk_buff *skb)
{
	scm_destroy(&skb->scm);
	if (skb->sk) {
		skb->sk->wmem_alloc -= (int)skb->truesize;
		wake_up(&skb->sk->wait);
		sock_put(skb->sk);
	}
	kfree(skb->from);
	kfree(skb);
}

void unix_queue_skb(struct sock *sk, struct sk_buff *skb)
{
	list_add_tail(&skb->list, &sk->receive_queue);
	sk->qlen++;
	wake_up(&sk->wait);
}

struct sk_buff *skb_peek(struct sock *sk)
{
	return list_empty(&sk->receive_queue) ? NULL
		: list_first_entry(&sk->receive_queue, struct sk_buff, list);
}

void skb_unlink(struct sock *sk, struct sk_buff *skb)
{
	list_del(&skb->list);
	sk->qlen--;
	wake_up(&sk->wait); /* room for datagram writers and connecters */
}

void unix_iolock(struct sock *sk)
{
	struct wait_queue_entry w;

	init_wait(&w, current);
	for (;;) {
		prepare_to_wait(&sk->wait, &w, TASK_UNINTERRUPTIBLE);
		if (!sk->reading)
			break;
		schedule();
	}
	finish_wait(&sk->wait, &w);
	sk->reading = true;
}

void unix_iounlock(struct sock *sk)
{
	sk->reading = false;
	wake_up(&sk->wait);
}

struct sock *unix_dequeue_embryo(struct sock *listener)
{
	struct sk_buff *skb = skb_peek(listener);
	struct sock *embryo;

	if (!skb)
		return NULL;
	skb_unlink(listener, skb);
	embryo = skb->embryo;
	skb->embryo = NULL;
	unix_free_skb(skb);
	return embryo;
}

int sock_error(struct sock *sk)
{
	int err = sk->err;

	sk->err = 0;
	return -err;
}

/* sk goes: its name, its peer (a stream's learns of it: end of file, and ECONNRESET if sk left
 * bytes unread or was a connection never accepted), and its queue, whose connections waiting
 * for accept go the same way. The reference its owner had goes last. */
static void unix_release_sock(struct sock *sk, bool embryo)
{
	struct sock *skpair = sk->peer;
	struct sk_buff *skb;

	unix_unbind(sk);
	sk->shutdown = SHUTDOWN_MASK;
	sk->dead = true;
	sk->state = TCP_CLOSE;
	sk->socket = NULL;
	sk->peer = NULL;
	if (skpair) {
		if (sk->type == SOCK_STREAM || sk->type == SOCK_SEQPACKET) {
			skpair->shutdown = SHUTDOWN_MASK;
			if (!list_empty(&sk->receive_queue) || embryo)
				skpair->err = ECONNRESET;
			wake_up(&skpair->wait);
		}
		sock_put(skpair);
	}
	while ((skb = skb_peek(sk))) {
		skb_unlink(sk, skb);
		if (skb->embryo)
			unix_release_sock(skb->embryo, true);
		unix_free_skb(skb);
	}
	wake_up(&sk->wait);
	sock_put(sk);
}

static int unix_release(struct socket *sock)
{
	if (sock->sk)
		unix_release_sock(sock->sk, false);
	sock->sk = NULL;
	return 0;
}

static int unix_socketpair(struct socket *a, struct socket *b)
{
	struct sock *ska = a->sk, *skb = b->sk;

	sock_hold(ska);
	sock_hold(skb);
	ska->peer = skb;
	skb->peer = ska;
	unix_current_cred(&ska->peercred);
	skb->peercred = ska->peercred;
	if (ska->type != SOCK_DGRAM) {
		ska->state = skb->state = TCP_ESTABLISHED;
		a->state = b->state = SS_CONNECTED;
	}
	return 0;
}

/* May sk send: are its bytes still queued at most a quarter of sndbuf (Linux's test)? */
static bool unix_writable(const struct sock *sk)
{
	return sk->state != TCP_LISTEN && ((int64_t)sk->wmem_alloc << 2) <= sk->sndbuf;
}

static unsigned int unix_poll(struct file *f, struct socket *sock, struct poll_table_struct *pt)
{
	struct sock *sk = sock->sk;
	unsigned int mask = 0;

	poll_wait(f, &sk->wait, pt);
	if (sk->err)
		mask |= POLLERR;
	if (sk->shutdown == SHUTDOWN_MASK)
		mask |= POLLHUP;
	if (sk->shutdown & RCV_SHUTDOWN)
		mask |= POLLRDHUP | POLLIN | POLLRDNORM;
	if (!list_empty(&sk->receive_queue))
		mask |= POLLIN | POLLRDNORM;
	if (sk->type != SOCK_DGRAM && sk->state == TCP_CLOSE)
		mask |= POLLHUP; /* a connection's socket that is not connected */
	if (unix_writable(sk))
		mask |= POLLOUT | POLLWRNORM | POLLWRBAND;
	if (sk->type == SOCK_DGRAM && sk->peer) {
		struct sock *other = sk->peer;

		poll_wait(f, &other->wait, pt);
		if (other->peer != sk && other->qlen > (unsigned int)other->max_ack_backlog)
			mask &= ~(POLLOUT | POLLWRNORM | POLLWRBAND); /* its queue is full */
	}
	return mask;
}

static long unix_ioctl(struct socket *sock, uint64_t cmd, uint64_t arg)
{
	struct sock *sk = sock->sk;
	struct sk_buff *skb;
	int n = 0;

	if (cmd == SIOCOUTQ) {
		n = sk->wmem_alloc;
	} else if (cmd == FIONREAD) {
		if (sk->state == TCP_LISTEN)
			return -EINVAL;
		list_for_each_entry(skb, &sk->receive_queue, list) {
			n += (int)(skb->len - skb->off);
			if (sk->type != SOCK_STREAM)
				break; /* a datagram's: the next one's size */
		}
	} else {
		return -ENOTTY;
	}
	return copy_to_user(arg, &n, sizeof(n)) ? -EFAULT : 0;
}

static int unix_shutdown(struct socket *sock, int how)
{
	struct sock *sk = sock->sk, *other = sk->peer;
	int mode;

	if (how < SHUT_RD || how > SHUT_RDWR)
		return -EINVAL;
	mode = how + 1; /* SHUT_RD is RCV_SHUTDOWN, SHUT_WR SEND_SHUTDOWN */
	sk->shutdown |= mode;
	wake_up(&sk->wait);
	if (other && sk->type != SOCK_DGRAM) {
		int peer_mode = 0;

		if (mode & RCV_SHUTDOWN)
			peer_mode |= SEND_SHUTDOWN;
		if (mode & SEND_SHUTDOWN)
			peer_mode |= RCV_SHUTDOWN;
		other->shutdown |= peer_mode;
		wake_up(&other->wait);
	}
	return 0;
}

static int unix_setsockopt(struct socket *sock, int level, int optname, const void *val,
			   int len)
{
	struct sock *sk = sock->sk;
	int v;

	if (level != SOL_SOCKET)
		return -EOPNOTSUPP;
	if (len < (int)sizeof(int))
		return -EINVAL;
	memcpy(&v, val, sizeof(v));
	switch (optname) {
	case SO_SNDBUF: /* doubled for the buffers' own cost, as Linux */
		v = (int)MIN((unsigned int)v, UNIX_MAX_BUF);
		sk->sndbuf = MAX(v * 2, SOCK_MIN_SNDBUF);
		wake_up(&sk->wait);
		return 0;
	case SO_RCVBUF:
		v = (int)MIN((unsigned int)v, UNIX_MAX_BUF);
		sk->rcvbuf = MAX(v * 2, SOCK_MIN_RCVBUF);
		return 0;
	case SO_PASSCRED:
		sk->passcred = v != 0;
		return 0;
	case SO_TYPE: case SO_ERROR: case SO_PEERCRED: case SO_ACCEPTCONN: case SO_DOMAIN:
	case SO_PROTOCOL:
		return -ENOPROTOOPT;
	}
	return -ENOPROTOOPT;
}

static int unix_getsockopt(struct socket *sock, int level, int optname, void *val, int *len)
{
	struct sock *sk = sock->sk;
	int v;

	if (level != SOL_SOCKET)
		return -EOPNOTSUPP;
	if (*len < 0)
		return -EINVAL;
	switch (optname) {
	case SO_TYPE: v = sk->type; break;
	case SO_ERROR: v = -sock_error(sk); break;
	case SO_SNDBUF: v = sk->sndbuf; break;
	case SO_RCVBUF: v = sk->rcvbuf; break;
	case SO_PASSCRED: v = sk->passcred; break;
	case SO_ACCEPTCONN: v = sk->state == TCP_LISTEN; break;
	case SO_DOMAIN: v = AF_UNIX; break;
	case SO_PROTOCOL: v = 0; break;
	case SO_PEERCRED:
		*len = MIN(*len, (int)sizeof(struct ucred));
		memcpy(val, &sk->peercred, (size_t)*len);
		return 0;
	default:
		return -ENOPROTOOPT;
	}
	*len = MIN(*len, (int)sizeof(int));
	memcpy(val, &v, (size_t)*len);
	return 0;
}

static int sock_no_listen(struct socket *sock, int backlog)
{
	(void)sock, (void)backlog;
	return -EOPNOTSUPP;
}

static int sock_no_accept(struct socket *sock, struct socket *newsock, int flags)
{
	(void)sock, (void)newsock, (void)flags;
	return -EOPNOTSUPP;
}

#define UNIX_COMMON_OPS .family = AF_UNIX, .release = unix_release, .bind = unix_bind, \
	.socketpair = unix_socketpair, .getname = unix_getname, .poll = unix_poll,    \
	.ioctl = unix_ioctl, .shutdown = unix_shutdown, .setsockopt = unix_setsockopt, \
	.getsockopt = unix_getsockopt

const struct proto_ops unix_stream_ops = {
	UNIX_COMMON_OPS,
	.connect = unix_stream_connect,
	.accept = unix_accept,
	.listen = unix_listen,
	.sendmsg = unix_stream_sendmsg,
	.recvmsg = unix_stream_recvmsg,
};

const struct proto_ops unix_dgram_ops = {
	UNIX_COMMON_OPS,
	.connect = unix_dgram_connect,
	.accept = sock_no_accept,
	.listen = sock_no_listen,
	.sendmsg = unix_dgram_sendmsg,
	.recvmsg = unix_dgram_recvmsg,
};

const struct proto_ops unix_seqpacket_ops = {
	UNIX_COMMON_OPS,
	.connect = unix_stream_connect,
	.accept = unix_accept,
	.listen = unix_listen,
	.sendmsg = unix_seqpacket_sendmsg,
	.recvmsg = unix_seqpacket_recvmsg,
};

static int unix_create(struct socket *sock, int protocol)
{
	if (protocol && protocol != AF_UNIX)
		return -EPROTONOSUPPORT;
	switch (sock->type) {
	case SOCK_STREAM:
		sock->ops = &unix_stream_ops;
		break;
	case SOCK_RAW: /* taken as a datagram socket, as Linux */
		sock->type = SOCK_DGRAM;
		/* fall through */
	case SOCK_DGRAM:
		sock->ops = &unix_dgram_ops;
		break;
	case SOCK_SEQPACKET:
		sock->ops = &unix_seqpacket_ops;
		break;
	default:
		return -ESOCKTNOSUPPORT;
	}
	return unix_create1(sock, sock->type) ? 0 : -ENOMEM;
}

static const struct net_proto_family unix_family_ops = {
	.family = AF_UNIX,
	.create = unix_create,
};

static void af_unix_init(void)
{
	sock_register(&unix_family_ops);
}
device_initcall(af_unix_init);
