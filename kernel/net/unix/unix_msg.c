/* AF_UNIX sockets, sends and receives (Linux's net/unix/af_unix.c): a stream's bytes in
 * buffers of at most UNIX_STREAM_CHUNK, glued again by the reader; a datagram or seqpacket
 * record one buffer, sent by name or to the peer. A sender waits while its bytes still queued
 * pass sndbuf; a datagram's also while its reader's queue is full. */
#include "kernel/errno.h"
#include "kernel/lib/err.h"
#include "kernel/lib/string.h"
#include "kernel/net/scm.h"
#include "kernel/net/unix/af_unix.h"
#include "kernel/sched/sched.h"
#include "kernel/signal/signal.h"
#include "mm/mmu.h"
#include "mm/slab.h"

/* The most one stream buffer holds: a write of more is split (Linux's SKB_MAX_HEAD(0) plus
 * UNIX_SKB_FRAGS_SZ, a page's head and 32 KiB of fragments). */
#define UNIX_STREAM_CHUNK (SKB_MAX_HEAD + 32768)

/* A stream write's end when the reader is gone: SIGPIPE unless MSG_NOSIGNAL, and EPIPE. */
static long pipe_err(long sent, int flags)
{
	if (!sent && !(flags & MSG_NOSIGNAL))
		send_sig(SIGPIPE, current);
	return sent ? sent : -EPIPE;
}

/* Wait until sk may charge another buffer (its sent bytes still queued are under sndbuf):
 * 0, or -EAGAIN, -ERESTARTSYS, the pending error, -EPIPE once sk may send no more. */
static int wait_for_wmem(struct sock *sk, bool nonblock)
{
	for (;;) {
		int err = sock_error(sk);

		if (err)
			return err;
		if (sk->shutdown & SEND_SHUTDOWN)
			return -EPIPE;
		if (sk->wmem_alloc < sk->sndbuf)
			return 0;
		if (nonblock)
			return -EAGAIN;
		err = wait_event_interruptible(sk->wait, sk->wmem_alloc < sk->sndbuf || sk->err ||
						     (sk->shutdown & SEND_SHUTDOWN));
		if (err)
			return sock_intr_errno(err);
	}
}

/* What msg's control messages carry goes with skb: its files (taken: msg keeps none) and the
 * credentials the sender named. */
static void unix_scm_to_skb(struct msghdr *msg, struct sk_buff *skb)
{
	if (msg->scm->nfp) {
		skb->scm.fp = msg->scm->fp;
		skb->scm.nfp = msg->scm->nfp;
		msg->scm->fp = NULL;
		msg->scm->nfp = 0;
	}
	if (msg->scm->has_creds)
		skb->scm.creds = msg->scm->creds;
}

long unix_stream_sendmsg(struct socket *sock, struct msghdr *msg, int flags)
{
	struct sock *sk = sock->sk, *other;
	bool nonblock = flags & MSG_DONTWAIT;
	long sent = 0;
	int err;

	if (flags & MSG_OOB)
		return -EOPNOTSUPP;
	if (msg->namelen)
		return sk->state == TCP_ESTABLISHED ? -EISCONN : -EOPNOTSUPP;
	other = sk->peer;
	if (!other)
		return -ENOTCONN;
	if (sk->shutdown & SEND_SHUTDOWN)
		return pipe_err(0, flags);
	while (msg->len) {
		uint64_t size = MIN(msg->len, (uint64_t)sk->sndbuf / 2 - 64), frags;
		struct sk_buff *skb;

		size = MIN(size, UNIX_STREAM_CHUNK);
		err = wait_for_wmem(sk, nonblock);
		if (err == -EPIPE)
			return pipe_err(sent, flags);
		if (err)
			return sent ? sent : err;
		/* Past a page's head, Linux puts the bytes in page fragments. */
		frags = size > SKB_MAX_HEAD ? ALIGN_UP(size - SKB_MAX_HEAD, PAGE_SIZE) : 0;
		frags = MIN(size, frags);
		skb = unix_alloc_skb(sk, (unsigned int)size, (unsigned int)(size - frags));
		if (!skb)
			return sent ? sent : -ENOBUFS;
		if (memcpy_fromiovec(skb->data, msg, size)) {
			unix_free_skb(skb);
			return sent ? sent : -EFAULT;
		}
		unix_scm_to_skb(msg, skb); /* the files go with the first buffer */
		other = sk->peer; /* the waits and the copy may have seen it go */
		if (!other || other->dead || (other->shutdown & RCV_SHUTDOWN)) {
			unix_free_skb(skb);
			return pipe_err(sent, flags);
		}
		unix_queue_skb(other, skb);
		sent += (long)size;
	}
	return sent;
}

/* Hand what skb carries to the receiver: its credentials, and its files (taken, or with a
 * reference more each for MSG_PEEK). */
static void unix_scm_recv(struct sock *sk, struct msghdr *msg, struct sk_buff *skb, int flags)
{
	msg->scm->creds = skb->scm.creds;
	msg->scm->has_creds = sk->passcred; /* SCM_CREDENTIALS for who asked for them */
	if (!skb->scm.nfp || msg->scm->nfp)
		return;
	if (!(flags & MSG_PEEK)) {
		msg->scm->fp = skb->scm.fp;
		msg->scm->nfp = skb->scm.nfp;
		skb->scm.fp = NULL;
		skb->scm.nfp = 0;
		return;
	}
	msg->scm->fp = kmalloc(sizeof(struct file *) * (size_t)skb->scm.nfp);
	if (!msg->scm->fp)
		return;
	for (int i = 0; i < skb->scm.nfp; i++)
		get_file(msg->scm->fp[i] = skb->scm.fp[i]);
	msg->scm->nfp = skb->scm.nfp;
}

static void unix_copy_from(struct msghdr *msg, struct sk_buff *skb)
{
	if (msg->name)
		msg->namelen = skb->from ? unix_copy_name(skb->from, msg->name) : 0;
}

/* Wait for a buffer in sk's queue, letting go of its reader's lock while asleep: 0 when there
 * is one; the pending error, 1 at end of file (the peer will send no more), -EAGAIN,
 * -ERESTARTSYS. */
static int wait_for_data(struct sock *sk, bool nonblock)
{
	for (;;) {
		int err;

		if (!list_empty(&sk->receive_queue))
			return 0;
		err = sock_error(sk);
		if (err)
			return err;
		if (nonblock && sk->type == SOCK_DGRAM)
			return -EAGAIN; /* a datagram socket's end of file is for a blocking read */
		if (sk->shutdown & RCV_SHUTDOWN)
			return 1;
		if (nonblock)
			return -EAGAIN;
		unix_iounlock(sk);
		err = wait_event_interruptible(sk->wait, !list_empty(&sk->receive_queue) ||
						     sk->err || (sk->shutdown & RCV_SHUTDOWN));
		unix_iolock(sk);
		if (err)
			return sock_intr_errno(err);
	}
}

/* The buffer holding the unread byte skip bytes from the front (NULL: fewer are queued), and
 * in *at that byte's offset in it. */
static struct sk_buff *skb_at(struct sock *sk, uint64_t skip, uint64_t *at)
{
	struct sk_buff *skb;

	list_for_each_entry(skb, &sk->receive_queue, list) {
		if (skip < skb->len - skb->off) {
			*at = skb->off + skip;
			return skb;
		}
		skip -= skb->len - skb->off;
	}
	return NULL;
}

/* A stream read: bytes of as many buffers as fit (at least target of them with MSG_WAITALL),
 * but never past a buffer that brought files, nor across two writers' credentials for a
 * reader that receives them. MSG_PEEK leaves them queued. */
long unix_stream_recvmsg(struct socket *sock, struct msghdr *msg, int flags)
{
	struct sock *sk = sock->sk;
	uint64_t target = flags & MSG_WAITALL ? msg->len : 1, copied = 0, skip = 0;
	struct sk_buff *skb;
	long err = 0;

	if (sk->state != TCP_ESTABLISHED)
		return -EINVAL;
	if (flags & MSG_OOB)
		return -EOPNOTSUPP;
	if (msg->name)
		msg->namelen = 0;
	unix_iolock(sk);
	while (msg->len) {
		uint64_t at, chunk;

		skb = skb_at(sk, flags & MSG_PEEK ? skip : 0, &at);
		if (!skb) {
			if (copied >= target || (copied && (flags & MSG_PEEK)))
				break;
			err = wait_for_data(sk, flags & MSG_DONTWAIT);
			if (err == 1 || (err && copied))
				err = 0; /* end of file, or what was read so far */
			if (err || list_empty(&sk->receive_queue))
				break;
			continue;
		}
		if (copied && sk->passcred &&
		    memcmp(&skb->scm.creds, &msg->scm->creds, sizeof(struct ucred)))
			break; /* never glue bytes of two writers' credentials */
		chunk = MIN(msg->len, skb->len - at);
		if (!copied)
			unix_copy_from(msg, skb);
		if (memcpy_toiovec(msg, skb->data + at, chunk)) {
			err = -EFAULT;
			break;
		}
		copied += chunk;
		unix_scm_recv(sk, msg, skb, flags);
		if (flags & MSG_PEEK) {
			skip += chunk;
		} else {
			skb->off += (unsigned int)chunk;
			if (skb->off == skb->len) {
				skb_unlink(sk, skb);
				unix_free_skb(skb);
			}
		}
		if (msg->scm->nfp)
			break; /* files end a read */
	}
	unix_iounlock(sk);
	return copied ? (long)copied : err;
}

/* Datagrams and seqpacket records: one buffer per send, sent by name or to the peer. */
long unix_dgram_sendmsg(struct socket *sock, struct msghdr *msg, int flags)
{
	struct sock *sk = sock->sk, *other;
	bool nonblock = flags & MSG_DONTWAIT;
	struct sk_buff *skb;
	uint64_t len = msg->len, frags;
	long err;

	if (flags & MSG_OOB)
		return -EOPNOTSUPP;
	if (len > (uint64_t)sk->sndbuf - 32)
		return -EMSGSIZE;
	err = wait_for_wmem(sk, nonblock);
	if (err)
		return err; /* (EPIPE after shutdown, with no SIGPIPE: only a stream sends it) */
	if (sk->passcred && !sk->addr) {
		err = unix_autobind(sk); /* the reader's credentials messages name their sender */
		if (err)
			return err;
	}
	/* Past four pages, Linux puts the bytes in page fragments (at most 17 pages of them). */
	frags = len > SKB_MAX_ALLOC ? MIN(len - SKB_MAX_ALLOC, 17 * PAGE_SIZE) : 0;
	frags = MIN(len, ALIGN_UP(frags, PAGE_SIZE));
	skb = unix_alloc_skb(sk, (unsigned int)len, (unsigned int)(len - frags));
	if (!skb)
		return -ENOBUFS;
	if (memcpy_fromiovec(skb->data, msg, len)) {
		unix_free_skb(skb);
		return -EFAULT;
	}
	unix_scm_to_skb(msg, skb);
restart:
	if (msg->namelen) {
		other = unix_find_other(msg->name, msg->namelen, sk->type);
		if (IS_ERR(other)) {
			err = PTR_ERR(other);
			goto out_free;
		}
	} else {
		other = sk->peer;
		err = -ENOTCONN;
		if (!other)
			goto out_free;
		sock_hold(other);
	}
	if (other->dead) {
		sock_put(other);
		if (sk->type == SOCK_SEQPACKET) {
			err = -EPIPE;
			goto out_free;
		}
		if (sk->peer == other) { /* the peer went: this socket is connected no more */
			sk->peer = NULL;
			sk->state = TCP_CLOSE;
			sock_put(other);
			err = -ECONNREFUSED;
			goto out_free;
		}
		goto restart;
	}
	err = -EPERM;
	if (other->peer && other->peer != sk)
		goto out_put; /* other is connected to another socket: it takes only from it */
	err = -EPIPE;
	if (other->shutdown & RCV_SHUTDOWN)
		goto out_put;
	if (other->peer != sk && other->qlen > (unsigned int)other->max_ack_backlog) {
		/* Its queue is full: wait for the reader (a connected pair's limit is sndbuf). */
		err = -EAGAIN;
		if (nonblock)
			goto out_put;
		err = wait_event_interruptible(other->wait, other->dead ||
					       other->qlen <= (unsigned int)other->max_ack_backlog);
		sock_put(other);
		err = sock_intr_errno(err);
		if (err)
			goto out_free;
		goto restart;
	}
	unix_queue_skb(other, skb);
	sock_put(other);
	return (long)len;
out_put:
	sock_put(other);
out_free:
	unix_free_skb(skb);
	return err;
}

long unix_seqpacket_sendmsg(struct socket *sock, struct msghdr *msg, int flags)
{
	if (sock->sk->state != TCP_ESTABLISHED)
		return -ENOTCONN;
	msg->namelen = 0; /* a connected socket's destination is its peer */
	return unix_dgram_sendmsg(sock, msg, flags);
}

long unix_dgram_recvmsg(struct socket *sock, struct msghdr *msg, int flags)
{
	struct sock *sk = sock->sk;
	struct sk_buff *skb;
	uint64_t chunk;
	long err;

	if (flags & MSG_OOB)
		return -EOPNOTSUPP;
	unix_iolock(sk);
	err = wait_for_data(sk, flags & MSG_DONTWAIT);
	if (err == 1 && msg->name)
		msg->namelen = 0;
	if (err) {
		unix_iounlock(sk);
		return err == 1 ? 0 : err; /* end of file: a connection's peer is gone */
	}
	skb = skb_peek(sk);
	if (!(flags & MSG_PEEK))
		skb_unlink(sk, skb); /* taken, even if the copy fails (Linux loses it too) */
	unix_copy_from(msg, skb);
	chunk = MIN(msg->len, skb->len);
	if (chunk < skb->len)
		msg->flags |= MSG_TRUNC;
	err = memcpy_toiovec(msg, skb->data, chunk);
	if (!err) {
		unix_scm_recv(sk, msg, skb, flags);
		err = (flags & MSG_TRUNC) ? (long)skb->len : (long)chunk;
	}
	if (!(flags & MSG_PEEK))
		unix_free_skb(skb);
	unix_iounlock(sk);
	return err;
}

long unix_seqpacket_recvmsg(struct socket *sock, struct msghdr *msg, int flags)
{
	if (sock->sk->state != TCP_ESTABLISHED)
		return -ENOTCONN;
	return unix_dgram_recvmsg(sock, msg, flags);
}

