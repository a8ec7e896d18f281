/* Messages between the calls and a family (kernel/net/scm.c, Linux's net/socket.c and
 * net/core/scm.c): addresses in and out of user memory, the user's msghdr, and the control
 * messages (SCM_RIGHTS, SCM_CREDENTIALS) that become an scm_cookie and back. */
#ifndef KERNEL_NET_SCM_H
#define KERNEL_NET_SCM_H

#include "kernel/net/socket.h"

/* An address from the caller (len bytes, at most SOCKADDR_MAX): 0, -EINVAL, -EFAULT. */
long move_addr_to_kernel(uint64_t uaddr, int len, struct sockaddr_k *addr);
/* klen bytes of addr to the caller's buffer, cut to the length *uaddrlen gave; *uaddrlen
 * becomes klen. 0, -EINVAL, -EFAULT. */
long move_addr_to_user(const struct sockaddr_k *addr, int klen, uint64_t uaddr,
		       uint64_t uaddrlen);
/* The family's sendmsg and recvmsg, MSG_DONTWAIT added for a non-blocking file. */
long sock_sendmsg(struct socket *sock, struct msghdr *msg, int flags);
long sock_recvmsg(struct socket *sock, struct msghdr *msg, int flags);
/* sendmsg(2) and recvmsg(2) with the caller's struct msghdr at umsg. */
long sock_sendmsg_user(struct socket *sock, uint64_t umsg, int flags);
long sock_recvmsg_user(struct socket *sock, uint64_t umsg, int flags);
/* Let go of what a cookie holds (its files' references). */
void scm_destroy(struct scm_cookie *scm);

#endif
