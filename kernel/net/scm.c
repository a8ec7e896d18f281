/* Messages of the socket calls (Linux's net/socket.c and net/core/scm.c): addresses and the
 * caller's buffers copied in and out, sendmsg's control messages made into an scm_cookie
 * (SCM_RIGHTS: files, SCM_CREDENTIALS: who sends, checked) and recvmsg's written back. */
#include "kernel/arch/uaccess.h"
#include "kernel/errno.h"
#include "kernel/fs/fdtable.h"
#include "kernel/lib/string.h"
#include "kernel/net/scm.h"
#include "kernel/process/cred.h"
#include "kernel/sched/sched.h"
#include "mm/slab.h"

#define UIO_MAXIOV 1024
#define OPTMEM_MAX 20480 /* net.core.optmem_max: the control messages of one sendmsg */
#define CMSG_HDR 16      /* sizeof(struct cmsghdr): cmsg_len (8), cmsg_level, cmsg_type */
#define CMSG_ALIGN(n) (((n) + 7) & ~(uint64_t)7)
#define CMSG_LEN(n) (CMSG_HDR + (n))
#define CMSG_SPACE(n) (CMSG_HDR + CMSG_ALIGN(n))

/* struct msghdr as x86-64 user space lays it out. */
struct user_msghdr {
	uint64_t name;
	int32_t namelen;
	uint32_t pad;
	uint64_t iov, iovlen, control, controllen;
	int32_t flags;
	uint32_t pad2;
};

struct cmsghdr {
	uint64_t len;
	int32_t level, type;
};

long move_addr_to_kernel(uint64_t uaddr, int len, struct sockaddr_k *addr)
{
	if (len < 0 || len > SOCKADDR_MAX)
		return -EINVAL;
	if (len && copy_from_user(addr, uaddr, (size_t)len))
		return -EFAULT;
	return 0;
}

long move_addr_to_user(const struct sockaddr_k *addr, int klen, uint64_t uaddr,
		       uint64_t uaddrlen)
{
	int len;

	if (copy_from_user(&len, uaddrlen, sizeof(len)))
		return -EFAULT;
	if (len < 0)
		return -EINVAL;
	if (len > klen)
		len = klen;
	if (len && copy_to_user(uaddr, addr, (size_t)len))
		return -EFAULT;
	return copy_to_user(uaddrlen, &klen, sizeof(klen)) ? -EFAULT : 0;
}

static int iovec_copy(struct msghdr *msg, void *kbuf, uint64_t n, bool to_user)
{
	char *k = kbuf;

	msg->len -= n;
	while (n) {
		struct kiovec *v = msg->iov;
		uint64_t chunk = MIN(n, v->len);

		if (to_user ? copy_to_user(v->base, k, chunk) : copy_from_user(k, v->base, chunk))
			return -EFAULT;
		k += chunk;
		n -= chunk;
		v->base += chunk;
		v->len -= chunk;
		if (!v->len && msg->iovlen > 1) {
			msg->iov++;
			msg->iovlen--;
		}
	}
	return 0;
}

int memcpy_fromiovec(void *kbuf, struct msghdr *msg, uint64_t n)
{
	return iovec_copy(msg, kbuf, n, false);
}

int memcpy_toiovec(struct msghdr *msg, const void *kbuf, uint64_t n)
{
	return iovec_copy(msg, (void *)kbuf, n, true);
}

void scm_destroy(struct scm_cookie *scm)
{
	for (int i = 0; i < scm->nfp; i++)
		fput(scm->fp[i]);
	kfree(scm->fp);
	scm->fp = NULL;
	scm->nfp = 0;
}

long sock_sendmsg(struct socket *sock, struct msghdr *msg, int flags)
{
	if (sock->file->f_flags & O_NONBLOCK)
		flags |= MSG_DONTWAIT;
	return sock->ops->sendmsg(sock, msg, flags);
}

long sock_recvmsg(struct socket *sock, struct msghdr *msg, int flags)
{
	if (sock->file->f_flags & O_NONBLOCK)
		flags |= MSG_DONTWAIT;
	return sock->ops->recvmsg(sock, msg, flags);
}

/* SCM_RIGHTS: a reference to each file named (-EBADF for a descriptor not open; -EINVAL past
 * SCM_MAX_FD in one message). */
static int scm_fp_copy(const struct cmsghdr *c, struct scm_cookie *scm)
{
	const int *fds = (const int *)(c + 1);
	int num = (int)((c->len - CMSG_HDR) / sizeof(int));
	struct file **fp;

	if (num <= 0)
		return 0;
	if (scm->nfp + num > SCM_MAX_FD)
		return -EINVAL;
	fp = kmalloc(sizeof(*fp) * (size_t)(scm->nfp + num));
	if (!fp)
		return -ENOMEM;
	for (int i = 0; i < scm->nfp; i++)
		fp[i] = scm->fp[i];
	kfree(scm->fp);
	scm->fp = fp;
	for (int i = 0; i < num; i++) {
		struct file *f = fds[i] < 0 ? NULL : fget((uint64_t)fds[i]);

		if (!f)
			return -EBADF;
		get_file(f);
		scm->fp[scm->nfp++] = f;
	}
	return 0;
}

/* SCM_CREDENTIALS: the sender's own ids, or any for a caller with the capability. */
static int scm_check_creds(const struct ucred *u)
{
	const struct task_cred *c = &current->cred;

	if (u->pid != current->tgid && !capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (u->uid != c->uid && u->uid != c->euid && u->uid != c->suid && !capable(CAP_SETUID))
		return -EPERM;
	if (u->gid != c->gid && u->gid != c->egid && u->gid != c->sgid && !capable(CAP_SETGID))
		return -EPERM;
	return 0;
}

/* The control messages (len bytes at ctl) into scm: 0 or -errno. Other levels are skipped. */
static int scm_send(const char *ctl, uint64_t len, struct scm_cookie *scm)
{
	for (uint64_t off = 0; len - off >= CMSG_HDR && off < len;) {
		const struct cmsghdr *c = (const struct cmsghdr *)(ctl + off);
		int err = 0;

		if (c->len < CMSG_HDR || c->len > len - off)
			return -EINVAL;
		if (c->level == SOL_SOCKET) {
			switch (c->type) {
			case SCM_RIGHTS:
				err = scm_fp_copy(c, scm);
				break;
			case SCM_CREDENTIALS:
				if (c->len != CMSG_LEN(sizeof(struct ucred)))
					return -EINVAL;
				memcpy(&scm->creds, c + 1, sizeof(scm->creds));
				err = scm_check_creds(&scm->creds);
				scm->has_creds = true;
				break;
			default:
				return -EINVAL;
			}
		}
		if (err)
			return err;
		off += CMSG_ALIGN(c->len);
	}
	return 0;
}

/* One sendmsg or recvmsg: the caller's msghdr and the kernel's message made of it. */
struct user_msg {
	struct user_msghdr um;
	struct sockaddr_k addr;
	struct scm_cookie scm;
	struct msghdr msg;
	struct kiovec *iov; /* the caller's buffers, kfree'd at the end */
};

/* The caller's msghdr at umsg into m: its buffers, its control buffer; the name is the
 * caller's to copy. 0, -EFAULT, -EINVAL, -EMSGSIZE (more than UIO_MAXIOV buffers). */
static long copy_msghdr(uint64_t umsg, struct user_msg *m)
{
	struct user_msghdr *um = &m->um;
	struct msghdr *msg = &m->msg;

	memset(m, 0, sizeof(*m));
	msg->scm = &m->scm;
	if (copy_from_user(um, umsg, sizeof(*um)))
		return -EFAULT;
	if (!um->name)
		um->namelen = 0;
	if (um->namelen < 0)
		return -EINVAL;
	if (um->namelen > SOCKADDR_MAX)
		um->namelen = SOCKADDR_MAX;
	if (um->iovlen > UIO_MAXIOV)
		return -EMSGSIZE;
	m->iov = kmalloc(sizeof(*m->iov) * (um->iovlen ? um->iovlen : 1));
	if (!m->iov)
		return -ENOMEM;
	if (copy_from_user(m->iov, um->iov, sizeof(*m->iov) * um->iovlen))
		return -EFAULT;
	msg->iov = m->iov;
	msg->iovlen = (unsigned int)um->iovlen;
	for (uint64_t i = 0; i < um->iovlen; i++) {
		if ((int64_t)m->iov[i].len < 0 || msg->len + m->iov[i].len > INT64_MAX)
			return -EINVAL;
		msg->len += m->iov[i].len;
	}
	msg->control = um->control;
	msg->controllen = um->controllen;
	return 0;
}

static void user_msg_done(struct user_msg *m)
{
	scm_destroy(&m->scm);
	kfree(m->iov);
}

long sock_sendmsg_user(struct socket *sock, uint64_t umsg, int flags)
{
	struct user_msg m;
	char *ctl = NULL;
	long err = copy_msghdr(umsg, &m);

	if (!err && m.um.namelen) {
		err = move_addr_to_kernel(m.um.name, m.um.namelen, &m.addr);
		m.msg.name = &m.addr;
		m.msg.namelen = m.um.namelen;
	}
	if (!err && m.um.controllen) {
		err = m.um.controllen > OPTMEM_MAX ? -ENOBUFS : 0;
		ctl = err ? NULL : kmalloc(m.um.controllen);
		if (!err && !ctl)
			err = -ENOMEM;
		if (!err && copy_from_user(ctl, m.um.control, m.um.controllen))
			err = -EFAULT;
		if (!err)
			err = scm_send(ctl, m.um.controllen, &m.scm);
	}
	if (!err)
		err = sock_sendmsg(sock, &m.msg, flags);
	kfree(ctl);
	user_msg_done(&m);
	return err;
}

/* One control message of len bytes of data out to the caller's buffer, cut (MSG_CTRUNC) to
 * what is left of it. */
static void put_cmsg(struct msghdr *msg, int level, int type, uint64_t len, const void *data)
{
	struct cmsghdr c = { CMSG_LEN(len), level, type };
	uint64_t used;

	if (!msg->control || msg->controllen < CMSG_HDR) {
		msg->flags |= MSG_CTRUNC;
		return;
	}
	if (msg->controllen < c.len) {
		msg->flags |= MSG_CTRUNC;
		c.len = msg->controllen;
	}
	if (copy_to_user(msg->control, &c, sizeof(c)) ||
	    copy_to_user(msg->control + CMSG_HDR, data, c.len - CMSG_HDR))
		return;
	used = MIN(CMSG_SPACE(len), msg->controllen);
	msg->control += used;
	msg->controllen -= used;
}

/* SCM_RIGHTS out: a new descriptor for each file while there is room (MSG_CTRUNC for the
 * others, which are closed). */
static void scm_detach_fds(struct msghdr *msg, struct scm_cookie *scm)
{
	int fdmax = msg->controllen > CMSG_HDR ? (int)((msg->controllen - CMSG_HDR) / 4) : 0;
	int fds[SCM_MAX_FD], i;

	for (i = 0; i < scm->nfp && i < fdmax; i++) {
		long fd;

		get_file(scm->fp[i]);
		fd = fd_install_lowest(scm->fp[i], 0, msg->flags & MSG_CMSG_CLOEXEC);
		if (fd < 0)
			break;
		fds[i] = (int)fd;
	}
	if (i)
		put_cmsg(msg, SOL_SOCKET, SCM_RIGHTS, sizeof(int) * (uint64_t)i, fds);
	if (i < scm->nfp)
		msg->flags |= MSG_CTRUNC;
	scm_destroy(scm);
}

long sock_recvmsg_user(struct socket *sock, uint64_t umsg, int flags)
{
	struct user_msg m;
	struct user_msghdr *um = &m.um;
	long r = copy_msghdr(umsg, &m), err;

	if (r)
		goto out;
	m.msg.name = um->name ? &m.addr : NULL;
	m.msg.flags = (unsigned int)flags & MSG_CMSG_CLOEXEC;
	r = sock_recvmsg(sock, &m.msg, flags);
	if (r < 0)
		goto out;
	if (um->name) {
		int len = MIN(um->namelen, m.msg.namelen);

		if (len && copy_to_user(um->name, &m.addr, (size_t)len))
			r = -EFAULT;
		um->namelen = m.msg.namelen;
	}
	if (m.scm.has_creds)
		put_cmsg(&m.msg, SOL_SOCKET, SCM_CREDENTIALS, sizeof(m.scm.creds), &m.scm.creds);
	if (m.scm.nfp)
		scm_detach_fds(&m.msg, &m.scm);
	/* Back to the caller: msg_flags, the control bytes used, the name's length. */
	um->flags = (int32_t)m.msg.flags;
	um->controllen -= m.msg.controllen;
	err = copy_to_user(umsg + offsetof(struct user_msghdr, flags), &um->flags,
			   sizeof(um->flags));
	err |= copy_to_user(umsg + offsetof(struct user_msghdr, controllen), &um->controllen,
			    sizeof(um->controllen));
	if (um->name)
		err |= copy_to_user(umsg + offsetof(struct user_msghdr, namelen), &um->namelen,
				    sizeof(um->namelen));
	if (err)
		r = -EFAULT;
out:
	user_msg_done(&m);
	return r;
}
