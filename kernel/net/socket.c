/* The socket layer (Linux's net/socket.c): sockets as files in sockfs (fstat's S_IFSOCK, read
 * and write as recv and send), the table of families socket(2) looks in, and the calls, which
 * check what every family shares (descriptors, address lengths, flags) and hand the rest to
 * the family's proto_ops. Messages and control messages are kernel/net/scm.c's. */
#include "kernel/arch/uaccess.h"
#include "kernel/errno.h"
#include "kernel/fs/fdtable.h"
#include "kernel/fs/libfs.h"
#include "kernel/fs/poll.h"
#include "kernel/initcall.h"
#include "kernel/net/scm.h"
#include "kernel/net/socket.h"
#include "kernel/printk/printk.h"
#include "kernel/sched/sched.h"
#include "kernel/syscalls.h"
#include "mm/slab.h"

#define SOMAXCONN 4096 /* net.core.somaxconn: listen's backlog at most */

static const struct net_proto_family *net_families[NPROTO];
static struct super_block *sock_mnt;

int sock_register(const struct net_proto_family *ops)
{
	if (ops->family < 0 || ops->family >= NPROTO || net_families[ops->family])
		return -EEXIST;
	net_families[ops->family] = ops;
	return 0;
}

static long sock_read(struct file *f, uint64_t ubuf, uint64_t n, uint64_t *pos)
{
	struct socket *sock = f->f_inode->i_private;
	struct kiovec iov = { ubuf, n };
	struct scm_cookie scm = { 0 };
	struct msghdr msg = { .iov = &iov, .iovlen = 1, .len = n, .scm = &scm };
	long r;

	(void)pos;
	if (!n)
		return 0;
	r = sock->ops->recvmsg(sock, &msg, f->f_flags & O_NONBLOCK ? MSG_DONTWAIT : 0);
	scm_destroy(&scm); /* files sent to a reader that asked for none are closed */
	return r;
}

static long sock_write(struct file *f, uint64_t ubuf, uint64_t n, uint64_t *pos)
{
	struct socket *sock = f->f_inode->i_private;
	struct kiovec iov = { ubuf, n };
	struct scm_cookie scm = { 0 };
	struct msghdr msg = { .iov = &iov, .iovlen = 1, .len = n, .scm = &scm };

	(void)pos;
	return sock->ops->sendmsg(sock, &msg, f->f_flags & O_NONBLOCK ? MSG_DONTWAIT : 0);
}

static unsigned int sock_poll(struct file *f, struct poll_table_struct *pt)
{
	struct socket *sock = f->f_inode->i_private;

	return sock->ops->poll(f, sock, pt);
}

static long sock_ioctl(struct file *f, uint64_t cmd, uint64_t arg)
{
	struct socket *sock = f->f_inode->i_private;

	return sock->ops->ioctl(sock, cmd, arg);
}

/* The socket's last file went: the family lets go of it, and its inode goes. */
static void sock_close(struct inode *ino, struct file *f)
{
	struct socket *sock = ino->i_private;

	(void)f;
	if (sock->ops)
		sock->ops->release(sock);
	kfree(sock);
	ino->i_private = NULL;
	ino->i_nlink = 0; /* iput frees the inode once this last file lets go of it */
}

static const struct file_operations socket_file_ops = {
	.llseek = no_llseek,
	.read = sock_read,
	.write = sock_write,
	.poll = sock_poll,
	.ioctl = sock_ioctl,
	.open = nonseekable_open,
	.release = sock_close,
};

static struct file_system_type sock_fs_type = {
	.name = "sockfs",
	.magic = 0x534F434B, /* SOCKFS_MAGIC */
	.fill_super = pseudo_fill_super,
};

/* Mount sockfs, where every socket's inode lives, once at boot (its memory is then taken
 * before any process runs, not by the first one that makes a socket). */
static void sock_init(void)
{
	sock_mnt = kern_mount(&sock_fs_type);
	if (!sock_mnt)
		printk("socket: cannot mount sockfs: socket() will fail with ENFILE\n");
}
device_initcall(sock_init);

struct socket *sock_from_file(struct file *f)
{
	return f->f_op == &socket_file_ops ? f->f_inode->i_private : NULL;
}

struct socket *sock_alloc(unsigned int flags)
{
	struct socket *sock;
	struct inode *ino;

	if (!sock_mnt)
		return NULL;
	sock = kzalloc(sizeof(*sock));
	ino = sock ? new_inode(sock_mnt, S_IFSOCK | 0777) : NULL;
	if (!ino) {
		kfree(sock);
		return NULL;
	}
	inode_init_owner(ino, NULL, S_IFSOCK | 0777);
	ino->i_private = sock;
	ino->i_fop = &socket_file_ops;
	sock->inode = ino;
	sock->state = SS_UNCONNECTED;
	if (dentry_open(&ino->i_dentry, O_RDWR | (flags & O_NONBLOCK), &sock->file)) {
		kfree(sock);
		kfree(ino);
		return NULL;
	}
	return sock;
}

void sock_release(struct socket *sock)
{
	fput(sock->file); /* its only reference: sock_close follows */
}

/* A new socket of family, type and protocol (flags: O_NONBLOCK): 0 or -errno. */
static int sock_create(int family, int type, int protocol, unsigned int flags,
		       struct socket **out)
{
	struct socket *sock;
	int err;

	if (family < 0 || family >= NPROTO)
		return -EAFNOSUPPORT;
	if (type < 0 || type >= SOCK_MAX)
		return -EINVAL;
	if (!net_families[family])
		return -EAFNOSUPPORT; /* AF_INET too: faultline has no network */
	sock = sock_alloc(flags);
	if (!sock)
		return -ENFILE;
	sock->type = type;
	err = net_families[family]->create(sock, protocol);
	if (err) {
		sock_release(sock);
		return err;
	}
	*out = sock;
	return 0;
}

/* The socket open on fd, or NULL with *err -EBADF or -ENOTSOCK. */
static struct socket *sockfd_lookup(uint64_t fd, long *err)
{
	struct file *f = fget(fd);
	struct socket *sock = f ? sock_from_file(f) : NULL;

	*err = !f ? -EBADF : -ENOTSOCK;
	return sock;
}

/* The socket open on fd and the address the caller gave at uaddr (bind, connect), or NULL
 * with *err. */
static struct socket *sockfd_lookup_addr(uint64_t fd, uint64_t uaddr, int64_t addrlen,
					 struct sockaddr_k *addr, long *err)
{
	struct socket *sock = sockfd_lookup(fd, err);

	if (sock && (*err = move_addr_to_kernel(uaddr, (int)addrlen, addr)))
		return NULL;
	return sock;
}

/* socket's and socketpair's type: its SOCK_* and its flags, which must be known ones. */
static long split_type(uint64_t *type, unsigned int *flags)
{
	*flags = (unsigned int)*type & ~SOCK_TYPE_MASK;
	*type &= SOCK_TYPE_MASK;
	return *flags & ~(unsigned int)(SOCK_CLOEXEC | SOCK_NONBLOCK) ? -EINVAL : 0;
}

long sys_socket(int64_t family, uint64_t type, int64_t protocol)
{
	struct socket *sock;
	unsigned int flags;
	long err = split_type(&type, &flags);

	if (!err)
		err = sock_create((int)family, (int)type, (int)protocol, flags, &sock);
	if (err)
		return err;
	return fd_install_lowest(sock->file, 0, flags & SOCK_CLOEXEC);
}

long sys_socketpair(int64_t family, uint64_t type, int64_t protocol, uint64_t usv)
{
	struct socket *a, *b;
	unsigned int flags;
	int fds[2];
	long err = split_type(&type, &flags);

	if (!err)
		err = sock_create((int)family, (int)type, (int)protocol, flags, &a);
	if (err)
		return err;
	err = sock_create((int)family, (int)type, (int)protocol, flags, &b);
	if (err) {
		sock_release(a);
		return err;
	}
	err = a->ops->socketpair(a, b);
	if (err) {
		sock_release(a);
		sock_release(b);
		return err;
	}
	fds[0] = (int)fd_install_lowest(a->file, 0, flags & SOCK_CLOEXEC);
	fds[1] = fds[0] < 0 ? -EMFILE : (int)fd_install_lowest(b->file, 0, flags & SOCK_CLOEXEC);
	if (fds[1] < 0) {
		if (fds[0] >= 0)
			sys_close((uint64_t)fds[0]);
		else
			sock_release(b);
		return -EMFILE;
	}
	if (copy_to_user(usv, fds, sizeof(fds))) {
		sys_close((uint64_t)fds[0]);
		sys_close((uint64_t)fds[1]);
		return -EFAULT;
	}
	return 0;
}

long sys_bind(uint64_t fd, uint64_t uaddr, int64_t addrlen)
{
	struct sockaddr_k addr;
	long err;
	struct socket *sock = sockfd_lookup_addr(fd, uaddr, addrlen, &addr, &err);

	return sock ? sock->ops->bind(sock, &addr, (int)addrlen) : err;
}

long sys_listen(uint64_t fd, int64_t backlog)
{
	long err;
	struct socket *sock = sockfd_lookup(fd, &err);

	if (!sock)
		return err;
	if ((unsigned int)backlog > SOMAXCONN)
		backlog = SOMAXCONN;
	return sock->ops->listen(sock, (int)backlog);
}

long sys_connect(uint64_t fd, uint64_t uaddr, int64_t addrlen)
{
	struct sockaddr_k addr;
	long err;
	struct socket *sock = sockfd_lookup_addr(fd, uaddr, addrlen, &addr, &err);

	return sock ? sock->ops->connect(sock, &addr, (int)addrlen,
					 (int)(sock->file->f_flags & O_NONBLOCK)) : err;
}

long sys_accept4(uint64_t fd, uint64_t uaddr, uint64_t uaddrlen, uint64_t flags)
{
	struct sockaddr_k addr;
	struct socket *newsock;
	long err;
	struct socket *sock = sockfd_lookup(fd, &err);

	if (flags & ~(uint64_t)(SOCK_CLOEXEC | SOCK_NONBLOCK))
		return -EINVAL;
	if (!sock)
		return err;
	newsock = sock_alloc((unsigned int)flags & O_NONBLOCK);
	if (!newsock)
		return -ENFILE;
	newsock->type = sock->type;
	newsock->ops = sock->ops;
	err = sock->ops->accept(sock, newsock, (int)(sock->file->f_flags & O_NONBLOCK));
	if (!err && uaddr) {
		err = newsock->ops->getname(newsock, &addr, 1);
		if (err >= 0)
			err = move_addr_to_user(&addr, (int)err, uaddr, uaddrlen);
	}
	if (err) {
		sock_release(newsock);
		return err;
	}
	return fd_install_lowest(newsock->file, 0, flags & SOCK_CLOEXEC);
}

long sys_accept(uint64_t fd, uint64_t uaddr, uint64_t uaddrlen)
{
	return sys_accept4(fd, uaddr, uaddrlen, 0);
}

static long getname(uint64_t fd, uint64_t uaddr, uint64_t uaddrlen, int peer)
{
	struct sockaddr_k addr;
	long err;
	struct socket *sock = sockfd_lookup(fd, &err);
	int len;

	if (!sock)
		return err;
	if (copy_from_user(&len, uaddrlen, sizeof(len)))
		return -EFAULT;
	if (len < 0)
		return -EINVAL;
	err = sock->ops->getname(sock, &addr, peer);
	return err < 0 ? err : move_addr_to_user(&addr, (int)err, uaddr, uaddrlen);
}

long sys_getsockname(uint64_t fd, uint64_t uaddr, uint64_t uaddrlen)
{
	return getname(fd, uaddr, uaddrlen, 0);
}

long sys_getpeername(uint64_t fd, uint64_t uaddr, uint64_t uaddrlen)
{
	return getname(fd, uaddr, uaddrlen, 1);
}

long sys_shutdown(uint64_t fd, int64_t how)
{
	long err;
	struct socket *sock = sockfd_lookup(fd, &err);

	return sock ? sock->ops->shutdown(sock, (int)how) : err;
}

#define OPT_MAX 64 /* the longest option value faultline's families know */

long sys_setsockopt(uint64_t fd, int64_t level, int64_t optname, uint64_t uval,
		    int64_t optlen)
{
	char val[OPT_MAX] = { 0 };
	long err;
	struct socket *sock = sockfd_lookup(fd, &err);

	if (!sock)
		return err;
	if ((int)optlen < 0)
		return -EINVAL;
	if (copy_from_user(val, uval, MIN((size_t)(int)optlen, sizeof(val))))
		return -EFAULT;
	return sock->ops->setsockopt(sock, (int)level, (int)optname, val, (int)optlen);
}

long sys_getsockopt(uint64_t fd, int64_t level, int64_t optname, uint64_t uval,
		    uint64_t uoptlen)
{
	char val[OPT_MAX];
	long err;
	struct socket *sock = sockfd_lookup(fd, &err);
	int len;

	if (!sock)
		return err;
	if (copy_from_user(&len, uoptlen, sizeof(len)))
		return -EFAULT;
	if (len >= 0)
		len = MIN(len, (int)sizeof(val));
	err = sock->ops->getsockopt(sock, (int)level, (int)optname, val, &len);
	if (err)
		return err;
	if (copy_to_user(uval, val, (size_t)len) || copy_to_user(uoptlen, &len, sizeof(len)))
		return -EFAULT;
	return 0;
}

long sys_sendto(uint64_t fd, uint64_t ubuf, uint64_t len, uint64_t flags, uint64_t uaddr,
		int64_t addrlen)
{
	struct kiovec iov = { ubuf, len };
	struct sockaddr_k addr;
	struct scm_cookie scm = { 0 };
	struct msghdr msg = { .iov = &iov, .iovlen = 1, .len = len, .scm = &scm };
	long err;
	struct socket *sock = sockfd_lookup(fd, &err);

	if (!sock)
		return err;
	if (uaddr) {
		err = move_addr_to_kernel(uaddr, (int)addrlen, &addr);
		if (err)
			return err;
		msg.name = &addr;
		msg.namelen = (int)addrlen;
	}
	return sock_sendmsg(sock, &msg, (int)flags);
}

long sys_recvfrom(uint64_t fd, uint64_t ubuf, uint64_t len, uint64_t flags, uint64_t uaddr,
		  uint64_t uaddrlen)
{
	struct kiovec iov = { ubuf, len };
	struct sockaddr_k addr;
	struct scm_cookie scm = { 0 };
	struct msghdr msg = { .iov = &iov, .iovlen = 1, .len = len, .scm = &scm };
	long err, r;
	struct socket *sock = sockfd_lookup(fd, &err);

	if (!sock)
		return err;
	if (uaddr)
		msg.name = &addr;
	r = sock_recvmsg(sock, &msg, (int)flags);
	scm_destroy(&scm);
	if (r >= 0 && uaddr) {
		err = move_addr_to_user(&addr, msg.namelen, uaddr, uaddrlen);
		if (err)
			return err;
	}
	return r;
}

long sys_sendmsg(uint64_t fd, uint64_t umsg, uint64_t flags)
{
	long err;
	struct socket *sock = sockfd_lookup(fd, &err);

	return sock ? sock_sendmsg_user(sock, umsg, (int)flags) : err;
}

long sys_recvmsg(uint64_t fd, uint64_t umsg, uint64_t flags)
{
	long err;
	struct socket *sock = sockfd_lookup(fd, &err);

	return sock ? sock_recvmsg_user(sock, umsg, (int)flags) : err;
}
