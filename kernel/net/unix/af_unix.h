/* AF_UNIX sockets (kernel/net/unix/): the sock of the family, the buffers (sk_buff) its
 * queues hold, and what its three files give each other: af_unix.c (socks, their lifetime,
 * the operations), unix_msg.c (sends and receives) and unix_addr.c (names: bind, connect,
 * listen, accept). */
#ifndef KERNEL_NET_UNIX_AF_UNIX_H
#define KERNEL_NET_UNIX_AF_UNIX_H

#include "kernel/lib/list.h"
#include "kernel/errno.h"
#include "kernel/net/socket.h"
#include "kernel/signal/signal.h"

/* Linux's defaults: net.core.wmem_default (and rmem), wmem_max, net.unix.max_dgram_qlen,
 * net.core.somaxconn, and the least a setsockopt may leave. */
#define UNIX_DEFAULT_BUF 212992
#define UNIX_MAX_BUF 212992
#define UNIX_MAX_DGRAM_QLEN 10
#define SOMAXCONN 4096
#define SOCK_MIN_SNDBUF 4608
#define SOCK_MIN_RCVBUF 2304
/* Linux's sizes behind a buffer's truesize: struct sk_buff and skb_shared_info as slabs hold
 * them, the largest head in one page with its skb_shared_info (SKB_MAX_HEAD(0)), and the
 * largest in four pages (SKB_MAX_ALLOC). */
#define SKB_STRUCT_SIZE 256
#define SKB_SHINFO_SIZE 320
#define SKB_MAX_HEAD (4096 - SKB_SHINFO_SIZE)
#define SKB_MAX_ALLOC (16384 - SKB_SHINFO_SIZE)

#define UNIX_PATH_MAX 108
#define UNIX_ADDR_MAX (2 + UNIX_PATH_MAX) /* sizeof(struct sockaddr_un) */

/* sk_state: Linux's TCP_ESTABLISHED, TCP_CLOSE and TCP_LISTEN. */
enum { TCP_ESTABLISHED = 1, TCP_CLOSE = 7, TCP_LISTEN = 10 };

/* A name a socket was bound to: len bytes of sockaddr_un (family, then the path with its NUL,
 * or the abstract name's bytes after the leading NUL). */
struct unix_address {
	int len;
	struct sockaddr_k name;
};

/* One buffer in a receive queue: bytes from one write (a datagram, or part of a stream), or
 * on a listener's queue a connection waiting for accept (embryo). Its truesize is charged to
 * the sending sock until the buffer is freed. */
struct sk_buff {
	struct list_head list;
	struct sock *sk;          /* the sender, charged truesize (NULL: none) */
	struct sock *embryo;      /* a listener's queue: the server half of a connection */
	unsigned int len, off;    /* bytes; off: those already read (a stream) */
	unsigned int truesize;
	struct unix_address *from; /* the sender's name when it was sent (NULL: unbound) */
	struct scm_cookie scm;    /* files and credentials it carries */
	char data[];
};

/* A Unix socket's state (2.6.23's struct sock with struct unix_sock). */
struct sock {
	int refcnt;               /* its socket, a peer pointing at it, buffers charged to it */
	struct socket *socket;    /* NULL: an embryo not yet accepted, or released */
	int type;
	int state;                /* TCP_* */
	int shutdown;             /* RCV_SHUTDOWN | SEND_SHUTDOWN */
	int err;                  /* SO_ERROR's pending error (positive), 0: none */
	bool dead;                /* released: sends to it fail */
	bool passcred;            /* SO_PASSCRED */
	bool reading;             /* a reader is in recvmsg (Linux's iolock) */
	struct sock *peer;        /* a stream's other end, a datagram socket's default target */
	struct list_head receive_queue; /* sk_buffs, oldest first */
	unsigned int qlen;
	int max_ack_backlog;      /* a listener's backlog; a datagram socket's queue limit */
	int wmem_alloc;           /* truesize of its buffers still queued somewhere */
	int sndbuf, rcvbuf;
	struct wait_queue_head wait; /* readers, writers, connecters, pollers */
	struct unix_address *addr;   /* its name (NULL: unbound) */
	struct inode *path_inode;    /* the S_IFSOCK file of its name, held while bound */
	struct list_head bound;      /* in the table of bound socks */
	struct ucred peercred;       /* SO_PEERCRED */
};

/* af_unix.c */
void sock_hold(struct sock *sk);
void sock_put(struct sock *sk);
/* A new sock of type with no socket (an embryo) or the socket's; NULL without memory. */
struct sock *unix_create1(struct socket *sock, int type);
/* current's credentials as a peer sees them. */
void unix_current_cred(struct ucred *c);
/* The sock a listener queued a connection as: it takes the reference the queue had. */
struct sock *unix_dequeue_embryo(struct sock *listener);
/* Queue buffer skb on sk's receive queue and wake its readers. */
void unix_queue_skb(struct sock *sk, struct sk_buff *skb);
/* A buffer of len bytes charged to sender (NULL: none) what Linux charges for one whose head
 * holds head of them and page fragments the rest, so that a sender fits as many writes as on
 * Linux before it waits. */
struct sk_buff *unix_alloc_skb(struct sock *sender, unsigned int len, unsigned int head);
void unix_free_skb(struct sk_buff *skb);
/* Copy a name's len bytes of sockaddr_un to addr: the length. */
int unix_copy_name(const struct unix_address *a, struct sockaddr_k *addr);
/* The first buffer of sk's queue (NULL: empty); one taken off it (waking its writers). */
struct sk_buff *skb_peek(struct sock *sk);
void skb_unlink(struct sock *sk, struct sk_buff *skb);
/* Readers one at a time (Linux's iolock): a reader copying out of a buffer may sleep on a
 * fault, and the buffer must stay. */
void unix_iolock(struct sock *sk);
void unix_iounlock(struct sock *sk);
/* The pending error, cleared as it is read (Linux's sock_error): -errno or 0. */
int sock_error(struct sock *sk);

/* A wait that a signal ended: the call restarts if the handler has SA_RESTART (Linux's
 * sock_intr_errno for a socket with no timeout). */
static inline int sock_intr_errno(int err)
{
	return err == -EINTR ? -ERESTARTSYS : err;
}

/* unix_msg.c: each type's sendmsg and recvmsg (proto_ops). */
long unix_stream_sendmsg(struct socket *sock, struct msghdr *msg, int flags);
long unix_stream_recvmsg(struct socket *sock, struct msghdr *msg, int flags);
long unix_dgram_sendmsg(struct socket *sock, struct msghdr *msg, int flags);
long unix_dgram_recvmsg(struct socket *sock, struct msghdr *msg, int flags);
long unix_seqpacket_sendmsg(struct socket *sock, struct msghdr *msg, int flags);
long unix_seqpacket_recvmsg(struct socket *sock, struct msghdr *msg, int flags);

/* unix_addr.c */
int unix_bind(struct socket *sock, struct sockaddr_k *addr, int addrlen);
/* A free abstract name of five hex digits for sk (bind with the family alone; a sender with
 * SO_PASSCRED that has none): 0 or -ENOSPC, -ENOMEM. */
int unix_autobind(struct sock *sk);
/* The bound sock addr names, of type: a reference, or ERR_PTR(-ENOENT, -ECONNREFUSED,
 * -EPROTOTYPE, -EACCES, -EINVAL...). */
struct sock *unix_find_other(struct sockaddr_k *addr, int addrlen, int type);
int unix_stream_connect(struct socket *sock, struct sockaddr_k *addr, int addrlen, int flags);
int unix_dgram_connect(struct socket *sock, struct sockaddr_k *addr, int addrlen, int flags);
int unix_listen(struct socket *sock, int backlog);
int unix_accept(struct socket *sock, struct socket *newsock, int flags);
int unix_getname(struct socket *sock, struct sockaddr_k *addr, int peer);
/* sk is going: out of the table of bound names, its file let go of. */
void unix_unbind(struct sock *sk);

#endif
