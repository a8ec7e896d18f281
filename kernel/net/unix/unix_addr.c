/* AF_UNIX sockets, the names half (Linux's net/unix/af_unix.c): bind to a path (an S_IFSOCK
 * file) or an abstract name (sun_path[0] == '\0', in no file system), the table of bound
 * socks that connect and sendto search, and listen, connect and accept of a stream or
 * seqpacket socket, whose connection is a sock made at connect and queued until accepted. */
#include "kernel/errno.h"
#include "kernel/fs/fs_struct.h"
#include "kernel/fs/namei.h"
#include "kernel/lib/err.h"
#include "kernel/lib/string.h"
#include "kernel/net/unix/af_unix.h"
#include "kernel/sched/sched.h"
#include "kernel/signal/signal.h"
#include "mm/slab.h"

static LIST_HEAD(unix_bound); /* every bound sock, by sk->bound */

int unix_copy_name(const struct unix_address *a, struct sockaddr_k *addr)
{
	memcpy(addr, &a->name, (size_t)a->len);
	return a->len;
}

/* Check addr (addrlen bytes, from the caller) and make it a name: the length a name of it
 * keeps (a path: up to its NUL, which counts; an abstract name: every byte), or -EINVAL. */
static int unix_mkname(struct sockaddr_k *addr, int addrlen)
{
	if (addrlen <= 2 || addrlen > UNIX_ADDR_MAX || addr->family != AF_UNIX)
		return -EINVAL;
	if (!addr->data[0])
		return addrlen;
	((char *)addr)[addrlen] = 0; /* a path needs no NUL of its own in the address */
	return 2 + (int)strlen(addr->data) + 1;
}

static struct sock *find_by_name(const struct sockaddr_k *addr, int len, int type)
{
	struct sock *sk;

	list_for_each_entry(sk, &unix_bound, bound)
		if (!sk->path_inode && sk->addr->len == len && sk->type == type &&
		    !memcmp(&sk->addr->name, addr, (size_t)len))
			return sk;
	return NULL;
}

static int unix_bind_name(struct sock *sk, const struct sockaddr_k *addr, int len)
{
	sk->addr = kmalloc(sizeof(*sk->addr));
	if (!sk->addr)
		return -ENOMEM;
	sk->addr->len = len;
	memcpy(&sk->addr->name, addr, (size_t)len);
	list_add_tail(&sk->bound, &unix_bound);
	return 0;
}

int unix_autobind(struct sock *sk)
{
	static unsigned int ordernum;
	struct sockaddr_k addr = { .family = AF_UNIX };

	for (unsigned int tries = 0; tries < 0x100000; tries++) {
		unsigned int n = ordernum++ & 0xfffff;

		for (int i = 0; i < 5; i++)
			addr.data[1 + i] = "0123456789abcdef"[(n >> (16 - 4 * i)) & 0xf];
		if (!find_by_name(&addr, 8, sk->type))
			return unix_bind_name(sk, &addr, 8);
	}
	return -ENOSPC;
}

int unix_bind(struct socket *sock, struct sockaddr_k *addr, int addrlen)
{
	struct sock *sk = sock->sk;
	struct inode *base, *ino;
	int len, err;

	if (addrlen == 2 && addr->family == AF_UNIX)
		return sk->addr ? -EINVAL : unix_autobind(sk);
	len = unix_mkname(addr, addrlen);
	if (len < 0)
		return len;
	if (sk->addr)
		return -EINVAL;
	if (!addr->data[0]) {
		if (find_by_name(addr, len, sk->type))
			return -EADDRINUSE;
		return unix_bind_name(sk, addr, len);
	}
	err = (int)dirfd_base(AT_FDCWD, addr->data, &base);
	if (!err)
		err = vfs_mknodat(base, addr->data, S_IFSOCK | apply_umask(0777), 0);
	if (err)
		return err == -EEXIST ? -EADDRINUSE : err;
	err = path_lookup_at(base, addr->data, false, &ino);
	if (!err)
		err = unix_bind_name(sk, addr, len);
	if (err)
		return err;
	ino->i_count++; /* the name's file stays while the socket is bound to it */
	sk->path_inode = ino;
	return 0;
}

void unix_unbind(struct sock *sk)
{
	struct inode *ino = sk->path_inode;

	if (!sk->addr)
		return;
	list_del(&sk->bound);
	INIT_LIST_HEAD(&sk->bound);
	sk->path_inode = NULL;
	if (ino) {
		ino->i_count--;
		iput(ino);
	}
}

struct sock *unix_find_other(struct sockaddr_k *addr, int addrlen, int type)
{
	struct inode *base, *ino;
	struct sock *sk;
	int len = unix_mkname(addr, addrlen), err;

	if (len < 0)
		return ERR_PTR(len);
	if (!addr->data[0]) {
		sk = find_by_name(addr, len, type);
		if (!sk)
			return ERR_PTR(-ECONNREFUSED);
		sock_hold(sk);
		return sk;
	}
	err = (int)dirfd_base(AT_FDCWD, addr->data, &base);
	if (!err)
		err = path_lookup_at(base, addr->data, true, &ino);
	if (!err)
		err = inode_permission(ino, MAY_WRITE);
	if (err)
		return ERR_PTR(err);
	if (!S_ISSOCK(ino->i_mode))
		return ERR_PTR(-ECONNREFUSED);
	list_for_each_entry(sk, &unix_bound, bound) {
		if (sk->path_inode != ino)
			continue;
		if (sk->type != type)
			return ERR_PTR(-EPROTOTYPE);
		sock_hold(sk);
		return sk;
	}
	return ERR_PTR(-ECONNREFUSED); /* a socket's file whose socket is gone */
}

int unix_listen(struct socket *sock, int backlog)
{
	struct sock *sk = sock->sk;

	if (!sk->addr)
		return -EINVAL; /* nobody could connect to it */
	if (sk->state != TCP_CLOSE && sk->state != TCP_LISTEN)
		return -EINVAL;
	if (backlog > sk->max_ack_backlog)
		wake_up(&sk->wait); /* room for connecters waiting */
	sk->max_ack_backlog = backlog;
	sk->state = TCP_LISTEN;
	unix_current_cred(&sk->peercred);
	return 0;
}

/* A connection is made at once: the server's half (an embryo sock) waits in the listener's
 * queue for accept, and bytes sent meanwhile wait in its queue. The connecter waits only for
 * room in a full backlog. */
int unix_stream_connect(struct socket *sock, struct sockaddr_k *addr, int addrlen, int flags)
{
	struct sock *sk = sock->sk, *other, *newsk;
	struct sk_buff *skb;
	int err;

	if (sk->passcred && !sk->addr) {
		err = unix_autobind(sk); /* the peer's credentials messages name their sender */
		if (err)
			return err;
	}
restart:
	other = unix_find_other(addr, addrlen, sk->type);
	if (IS_ERR(other))
		return (int)PTR_ERR(other);
	err = -ECONNREFUSED;
	if (other->state != TCP_LISTEN || (other->shutdown & RCV_SHUTDOWN))
		goto out;
	if (other->qlen > (unsigned int)other->max_ack_backlog) {
		err = -EAGAIN;
		if (flags & O_NONBLOCK)
			goto out;
		err = wait_event_interruptible(other->wait, other->dead ||
			other->state != TCP_LISTEN ||
			other->qlen <= (unsigned int)other->max_ack_backlog);
		sock_put(other);
		if (err)
			return sock_intr_errno(err);
		goto restart;
	}
	err = sk->state == TCP_ESTABLISHED ? -EISCONN : -EINVAL;
	if (sk->state != TCP_CLOSE)
		goto out;
	err = -ENOMEM;
	newsk = unix_create1(NULL, sk->type);
	skb = newsk ? unix_alloc_skb(NULL, 0, 0) : NULL;
	if (!skb) {
		if (newsk)
			sock_put(newsk);
		goto out;
	}
	newsk->state = TCP_ESTABLISHED;
	unix_current_cred(&newsk->peercred);
	if (other->addr) {
		newsk->addr = kmalloc(sizeof(*newsk->addr));
		if (newsk->addr)
			*newsk->addr = *other->addr;
	}
	sock_hold(sk);
	newsk->peer = sk;
	sock_hold(newsk);
	sk->peer = newsk;
	sk->state = TCP_ESTABLISHED;
	sk->peercred = other->peercred;
	sock->state = SS_CONNECTED;
	skb->embryo = newsk; /* the queue holds newsk's first reference */
	unix_queue_skb(other, skb);
	err = 0;
out:
	sock_put(other);
	return err;
}

int unix_dgram_connect(struct socket *sock, struct sockaddr_k *addr, int addrlen, int flags)
{
	struct sock *sk = sock->sk, *other = NULL, *old = sk->peer;

	(void)flags;
	if (addrlen < 2)
		return -EINVAL;
	if (addr->family != AF_UNSPEC) {
		if (sk->passcred && !sk->addr) {
			int err = unix_autobind(sk);

			if (err)
				return err;
		}
		other = unix_find_other(addr, addrlen, sk->type);
		if (IS_ERR(other))
			return (int)PTR_ERR(other);
		if (other->peer && other->peer != sk) {
			sock_put(other);
			return -EPERM;
		}
	}
	sk->peer = other; /* the reference unix_find_other took */
	sk->state = other ? TCP_ESTABLISHED : TCP_CLOSE;
	if (old)
		sock_put(old);
	return 0;
}

int unix_accept(struct socket *sock, struct socket *newsock, int flags)
{
	struct sock *sk = sock->sk, *newsk;
	int err;

	if (sk->state != TCP_LISTEN)
		return -EINVAL;
	for (;;) {
		newsk = unix_dequeue_embryo(sk);
		if (newsk)
			break;
		if (flags & O_NONBLOCK)
			return -EAGAIN;
		err = wait_event_interruptible(sk->wait, !list_empty(&sk->receive_queue) ||
						     sk->state != TCP_LISTEN);
		if (err)
			return sock_intr_errno(err);
		if (sk->state != TCP_LISTEN)
			return -EINVAL;
	}
	newsock->sk = newsk;
	newsk->socket = newsock;
	newsock->state = SS_CONNECTED;
	return 0;
}

int unix_getname(struct socket *sock, struct sockaddr_k *addr, int peer)
{
	struct sock *sk = sock->sk;

	if (peer) {
		sk = sk->peer;
		if (!sk)
			return -ENOTCONN;
	}
	if (sk->addr)
		return unix_copy_name(sk->addr, addr);
	addr->family = AF_UNIX;
	return 2;
}
