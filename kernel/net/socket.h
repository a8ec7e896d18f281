/* The socket layer (kernel/net/socket.c) as a family sees it: struct socket, the family's
 * proto_ops, the net_proto_family table a new family registers in, and the kernel's form of a
 * message (msghdr) with its user buffers. Numbers are Linux's x86-64 ones. */
#ifndef KERNEL_NET_SOCKET_H
#define KERNEL_NET_SOCKET_H

#include "kernel/fs/fs.h"
#include "kernel/sched/wait.h"

#define AF_UNSPEC 0
#define AF_UNIX 1
#define AF_INET 2
#define NPROTO 46 /* families are numbered below this (AF_MAX) */

#define SOCK_STREAM 1
#define SOCK_DGRAM 2
#define SOCK_RAW 3
#define SOCK_SEQPACKET 5
#define SOCK_MAX 11          /* types are numbered below this */
#define SOCK_TYPE_MASK 0xf
#define SOCK_CLOEXEC O_CLOEXEC   /* socket, socketpair, accept4: flags beside the type */
#define SOCK_NONBLOCK O_NONBLOCK

/* send and recv flags */
#define MSG_OOB 0x1
#define MSG_PEEK 0x2
#define MSG_CTRUNC 0x8
#define MSG_TRUNC 0x20
#define MSG_DONTWAIT 0x40
#define MSG_EOR 0x80
#define MSG_WAITALL 0x100
#define MSG_NOSIGNAL 0x4000
#define MSG_CMSG_CLOEXEC 0x40000000

/* shutdown's how, and the bits a socket keeps of it (Linux's sk_shutdown) */
#define SHUT_RD 0
#define SHUT_WR 1
#define SHUT_RDWR 2
#define RCV_SHUTDOWN 1
#define SEND_SHUTDOWN 2
#define SHUTDOWN_MASK 3

#define POLLRDHUP 0x2000 /* the peer will send no more (poll.h's other events) */

/* getsockopt and setsockopt at SOL_SOCKET */
#define SOL_SOCKET 1
#define SO_TYPE 3
#define SO_ERROR 4
#define SO_SNDBUF 7
#define SO_RCVBUF 8
#define SO_PASSCRED 16
#define SO_PEERCRED 17
#define SO_ACCEPTCONN 30
#define SO_PROTOCOL 38
#define SO_DOMAIN 39

/* control messages at SOL_SOCKET */
#define SCM_RIGHTS 1
#define SCM_CREDENTIALS 2
#define SCM_MAX_FD 253 /* descriptors one message may carry */

/* What struct socket's state says (Linux's socket_state). */
enum { SS_FREE, SS_UNCONNECTED, SS_CONNECTING, SS_CONNECTED, SS_DISCONNECTING };

/* A process's identity as a socket passes it on (SO_PEERCRED, SCM_CREDENTIALS). */
struct ucred {
	int32_t pid;
	uint32_t uid, gid;
};

struct socket;
struct sock;

/* A socket address in the kernel: the family and the bytes after it, len bytes in all. */
#define SOCKADDR_MAX 128 /* sizeof(struct sockaddr_storage): the longest a caller may pass */
struct sockaddr_k {
	uint16_t family;
	char data[SOCKADDR_MAX - 2];
};

/* A message on its way: name (the peer's address, namelen bytes; NULL: none asked), the
 * caller's buffers (iov, user addresses) consumed from the front as bytes are copied, and
 * the control messages: on send, the scm_cookie they became; on receive, the user buffer
 * they go to (msg_control, msg_controllen bytes left) and the flags (MSG_TRUNC...) set. */
struct kiovec {
	uint64_t base, len;
};
struct scm_cookie {
	struct file **fp; /* SCM_RIGHTS: files with a reference each, nfp of them */
	int nfp;
	struct ucred creds; /* the sender's, or those SCM_CREDENTIALS named */
	bool has_creds;
};
struct msghdr {
	struct sockaddr_k *name;
	int namelen;
	struct kiovec *iov;
	unsigned int iovlen;
	uint64_t len;              /* bytes the buffers hold, what is left of them */
	uint64_t control, controllen;
	unsigned int flags;        /* recv: MSG_TRUNC, MSG_CTRUNC out; MSG_CMSG_CLOEXEC in */
	struct scm_cookie *scm;    /* send: what the control messages carry (never NULL) */
};
/* Copy n bytes (n <= msg->len) from the message's buffers into kbuf, or from kbuf into them,
 * consuming them: 0 or -EFAULT. */
int memcpy_fromiovec(void *kbuf, struct msghdr *msg, uint64_t n);
int memcpy_toiovec(struct msghdr *msg, const void *kbuf, uint64_t n);

/*
 * What a family does with a socket of one type (2.6.23's proto_ops). Each returns 0 (or the
 * bytes moved, or the new socket's work) or -errno; a family leaves nothing NULL: an operation
 * a type lacks answers Linux's error for it (sock_no_*: -EOPNOTSUPP).
 */
struct proto_ops {
	int family;
	int (*release)(struct socket *sock);
	int (*bind)(struct socket *sock, struct sockaddr_k *addr, int addrlen);
	int (*connect)(struct socket *sock, struct sockaddr_k *addr, int addrlen, int flags);
	int (*socketpair)(struct socket *a, struct socket *b);
	/* The next connection of a listening sock made into newsock (flags: O_NONBLOCK). */
	int (*accept)(struct socket *sock, struct socket *newsock, int flags);
	/* The socket's own address (peer: its peer's) into addr: its length, or -errno. */
	int (*getname)(struct socket *sock, struct sockaddr_k *addr, int peer);
	unsigned int (*poll)(struct file *f, struct socket *sock, struct poll_table_struct *pt);
	long (*ioctl)(struct socket *sock, uint64_t cmd, uint64_t arg);
	int (*listen)(struct socket *sock, int backlog);
	int (*shutdown)(struct socket *sock, int how);
	int (*setsockopt)(struct socket *sock, int level, int optname, const void *val, int len);
	/* Into val (*len bytes at most): *len becomes what was written. */
	int (*getsockopt)(struct socket *sock, int level, int optname, void *val, int *len);
	long (*sendmsg)(struct socket *sock, struct msghdr *msg, int flags);
	long (*recvmsg)(struct socket *sock, struct msghdr *msg, int flags);
};

/* A socket as the file system sees it (the BSD socket; the family's state is in sk). */
struct socket {
	int state;                  /* SS_* */
	int type;                   /* SOCK_STREAM... */
	struct file *file;          /* the file it lives in (one, made with it) */
	struct inode *inode;        /* its inode in sockfs: fstat's S_IFSOCK, socket:[ino] */
	struct sock *sk;            /* the family's */
	const struct proto_ops *ops;
};

/* A family: create fills sock->ops and sock->sk for type and protocol (sock->type set). */
struct net_proto_family {
	int family;
	int (*create)(struct socket *sock, int protocol);
};
/* Make family the one socket(family, ...) uses: 0, or -EEXIST if it has one already. */
int sock_register(const struct net_proto_family *ops);

/* The socket a file is (NULL: the file is no socket). */
struct socket *sock_from_file(struct file *f);
/* A new socket of family with its file (flags: O_NONBLOCK), not yet created by the family:
 * kernel/net/socket.c's, for accept. NULL without memory. */
struct socket *sock_alloc(unsigned int flags);
/* Let go of a socket that never got a descriptor (its file, its sock). */
void sock_release(struct socket *sock);

#endif
