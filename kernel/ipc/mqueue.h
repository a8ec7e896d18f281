/* POSIX message queues (kernel/ipc/mqueue.c, mqueue_msg.c): the mqueue file system's queue,
 * what its two files share, and the tunables /proc/sys/fs/mqueue shows. */
#ifndef KERNEL_IPC_MQUEUE_H
#define KERNEL_IPC_MQUEUE_H

#include "kernel/fs/fs.h"
#include "kernel/lib/list.h"
#include "kernel/process/cred.h"
#include "kernel/sched/wait.h"

/* /proc/sys/fs/mqueue's values (Linux's defaults and bounds, ipc/mq_sysctl.c). */
#define DFLT_QUEUESMAX 256
#define DFLT_MSG 10
#define DFLT_MSGMAX 10
#define HARD_MSGMAX 65536
#define MIN_MSGMAX 1
#define DFLT_MSGSIZE 8192
#define DFLT_MSGSIZEMAX 8192
#define HARD_MSGSIZEMAX (16 * 1024 * 1024)
#define MIN_MSGSIZEMAX 128
extern int mq_queues_max, mq_msg_max, mq_msgsize_max, mq_msg_default, mq_msgsize_default;

/* Register the "mqueue" file system type (its instance is mounted on /dev/mqueue at boot). */
void mqueue_init(void);

#define MQ_PRIO_MAX 32768
#define SI_MESGQ (-3)
#define SIGEV_SIGNAL 0
#define SIGEV_NONE 1
#define SIGEV_THREAD 2
#define NOTIFY_COOKIE_LEN 32 /* SIGEV_THREAD's cookie, read from sigev_value's address */

/* struct mq_attr as user space passes it (x86-64). */
struct mq_attr {
	int64_t mq_flags;   /* O_NONBLOCK: the descriptor's, never the queue's */
	int64_t mq_maxmsg;  /* messages it holds at most */
	int64_t mq_msgsize; /* bytes of one message at most */
	int64_t mq_curmsgs; /* messages in it now */
	int64_t __reserved[4];
};

/* One message: its priority and length, its bytes in this block and the segments after it
 * (each at most a page, as Linux's msg_msgseg: no large block for a large message). */
struct msg_seg {
	struct msg_seg *next;
	char data[];
};

struct msg_msg {
	struct list_head m_list; /* in the queue: priority order, highest first, FIFO within */
	long m_type;             /* the priority */
	size_t m_ts;             /* the length */
	struct msg_seg *next;
	char data[];
};

/* A task asleep in send (its message waits in msg) or receive (a sender puts it in msg). */
enum { SEND, RECV };
struct ext_wait_queue {
	struct task_struct *task;
	struct list_head list;
	struct msg_msg *msg;
	bool ready; /* handed over: the sleeper's call is done */
};

/* The queue behind an mqueue inode (its i_private). */
struct mqueue_inode_info {
	struct mq_attr attr;
	struct list_head messages;
	struct list_head e_wait_q[2]; /* sleeping senders, receivers: the first served last */
	struct wait_queue_head wait_q; /* poll and select */
	unsigned long qsize;           /* bytes of the messages in it */
	/* mq_notify's registration: the process (tgid; 0: none), how and with what. */
	int notify_owner;
	int notify_kind; /* SIGEV_NONE, SIGEV_SIGNAL */
	int notify_signo;
	uint64_t notify_value;
	uid_t user;             /* the creator's real uid: RLIMIT_MSGQUEUE's account */
	unsigned long mq_bytes; /* what it costs that account */
	struct list_head list;  /* in mq_infos: every queue, named or only open */
};

/* kernel/ipc/mqueue.c */
extern const struct file_operations mqueue_file_operations;
/* The queue of an open mqueue file, NULL for any other file. */
static inline struct mqueue_inode_info *mqueue_file_info(const struct file *f)
{
	return f && f->f_op == &mqueue_file_operations ? f->f_inode->i_private : NULL;
}
/* The registration goes (mq_notify(NULL), a close by its owner, its one notification). */
void remove_notification(struct mqueue_inode_info *info);

/* kernel/ipc/mqueue_msg.c: a message received from the queue and freed. */
void free_msg(struct msg_msg *msg);

#endif
