/* POSIX timers (Linux's kernel/time/posix-timers.c and posix-cpu-timers.c): timer_create,
 * timer_settime, timer_gettime, timer_getoverrun and timer_delete on CLOCK_REALTIME,
 * CLOCK_MONOTONIC and CLOCK_BOOTTIME, and on the caller's process's or thread's CPU time
 * (CLOCK_PROCESS_CPUTIME_ID, CLOCK_THREAD_CPUTIME_ID), notifying by a signal to the process
 * (SIGEV_SIGNAL) or to one of its threads (SIGEV_THREAD_ID), or not at all (SIGEV_NONE).
 * Counted in timer ticks like the interval timers (itimer.c): the boot CPU's tick has the
 * events thread send the signals that are due; a CPU-time timer is looked at on each of those
 * ticks while one is armed. A periodic timer is armed again only when its signal is delivered,
 * which counts the periods missed meanwhile as its overrun (Linux's posixtimer_deliver_signal). */
#include "kernel/arch/uaccess.h"
#include "kernel/errno.h"
#include "kernel/lib/list.h"
#include "kernel/process/rusage.h"
#include "kernel/sched/sched.h"
#include "kernel/signal/signal.h"
#include "kernel/syscalls.h"
#include "kernel/time/posix-timers.h"
#include "kernel/time/time.h"
#include "kernel/workqueue.h"
#include "mm/slab.h"

#define CLOCK_REALTIME 0
#define CLOCK_MONOTONIC 1
#define CLOCK_PROCESS_CPUTIME_ID 2
#define CLOCK_THREAD_CPUTIME_ID 3
#define CLOCK_BOOTTIME 7
#define CLOCK_REALTIME_ALARM 8
#define CLOCK_BOOTTIME_ALARM 9
#define SIGEV_SIGNAL 0
#define SIGEV_NONE 1
#define SIGEV_THREAD 2
#define SIGEV_THREAD_ID 4
#define TIMER_ABSTIME 1
#define NSEC_PER_SEC 1000000000L
#define NSEC_PER_TICK (NSEC_PER_SEC / HZ)

/* The user's struct sigevent on x86-64 (64 bytes) */
struct sigevent {
	uint64_t sigev_value;
	int32_t sigev_signo, sigev_notify;
	int32_t sigev_tid; /* SIGEV_THREAD_ID's thread */
	int32_t pad[11];
};

struct itimerspec {
	struct timespec64 it_interval, it_value;
};

enum timer_state {
	TIMER_DISARMED,
	TIMER_ARMED,          /* due at expires */
	TIMER_REQUEUE_PENDING /* fired, periodic: armed again when its signal is delivered */
};

struct k_itimer {
	struct list_head list;        /* in posix_timers */
	struct signal_struct *owner;  /* the process that made it */
	int id;                       /* timer_t: the process's count of timer_creates */
	int clock;
	int clock_pid;                /* a CPU-time clock's process (tgid) or thread */
	int notify;                   /* SIGEV_SIGNAL, SIGEV_NONE or SIGEV_THREAD_ID */
	int signo;
	int target;                   /* the tgid, or SIGEV_THREAD_ID's tid */
	uint64_t value;               /* sigev_value, the signal's si_value */
	enum timer_state state;
	uint64_t expires;             /* jiffies, or ticks of CPU time for a CPU-time clock */
	uint64_t interval;            /* ticks; 0: one-shot */
	int overrun, overrun_last;    /* missed periods: so far, and at the last delivery */
};

static LIST_HEAD(posix_timers); /* every process's, big kernel lock data */
static int nr_armed;            /* signalling timers armed: the tick looks only then */
static int nr_cpu_armed;        /* of them, on a CPU-time clock: the tick looks every time */
static volatile uint64_t next_expiry = UINT64_MAX; /* of the armed wall-clock timers */

static bool cpu_clock(const struct k_itimer *t)
{
	return t->clock == CLOCK_PROCESS_CPUTIME_ID || t->clock == CLOCK_THREAD_CPUTIME_ID;
}

/* The timer's clock now, in ticks: jiffies, or the CPU time charged to its process or thread
 * (a thread gone: 0, a time that never comes, as its timer never fires in Linux) */
static uint64_t timer_now(const struct k_itimer *t)
{
	struct task_struct *p;
	struct rusage_acct u;

	if (!cpu_clock(t))
		return jiffies;
	p = find_task_by_pid(t->clock_pid);
	if (!p || p->signal != t->owner)
		return 0;
	if (t->clock == CLOCK_THREAD_CPUTIME_ID)
		return p->utime + p->stime;
	acct_group(p, &u);
	return u.utime + u.stime;
}

static struct k_itimer *lock_timer(int id)
{
	struct k_itimer *t;

	list_for_each_entry(t, &posix_timers, list)
		if (t->owner == current->signal && t->id == id)
			return t;
	return NULL;
}

static void set_state(struct k_itimer *t, enum timer_state state)
{
	if (t->notify != SIGEV_NONE) {
		int d = (state == TIMER_ARMED) - (t->state == TIMER_ARMED);

		nr_armed += d;
		if (cpu_clock(t))
			nr_cpu_armed += d;
	}
	t->state = state;
	if (state == TIMER_ARMED && t->notify != SIGEV_NONE && !cpu_clock(t) &&
	    t->expires < next_expiry)
		next_expiry = t->expires;
}

/* Would the signal be thrown away on arrival (Linux's sig_ignored)? */
static bool sig_ignored(struct task_struct *p, int sig)
{
	uint64_t h = p->sighand->action[sig - 1].sa_handler;

	if (p->blocked & sigmask(sig))
		return false;
	return h == SIG_IGN || (h == SIG_DFL && (sig == SIGCHLD || sig == SIGURG ||
						 sig == SIGWINCH || sig == SIGCONT));
}

/* Move a periodic timer's expiry past now: the number of periods it moved */
static int forward(struct k_itimer *t)
{
	uint64_t n, now = timer_now(t);

	if (now < t->expires)
		return 0;
	n = (now - t->expires) / t->interval + 1;
	t->expires += n * t->interval;
	return (int)MIN(n, (uint64_t)INT32_MAX);
}

/* A timer is due: its signal goes, or for a signal thrown away the timer goes on at once. */
static void timer_fire(struct k_itimer *t)
{
	struct ksiginfo info = { .signo = t->signo, .code = SI_TIMER, .pid = t->id,
				 .value = t->value, .trapno = POSIX_TIMER_SIGNAL };
	struct task_struct *p = find_task_by_pid(t->target);

	if (!p || p->signal != t->owner) { /* the thread is gone */
		set_state(t, TIMER_DISARMED);
		return;
	}
	if (sig_ignored(p, t->signo)) {
		if (t->interval) {
			t->overrun += forward(t);
			set_state(t, TIMER_ARMED);
		} else {
			set_state(t, TIMER_DISARMED);
		}
		return;
	}
	set_state(t, t->interval ? TIMER_REQUEUE_PENDING : TIMER_DISARMED);
	if (t->notify == SIGEV_THREAD_ID)
		send_sig_info(t->signo, &info, p);
	else
		group_send_sig_info(t->signo, &info, p);
}

/* In the events thread, under the big kernel lock: fire what is due */
static void posix_timer_work(struct work_struct *work)
{
	struct list_head *pos, *n;
	uint64_t next = UINT64_MAX;

	(void)work;
	list_for_each_safe(pos, n, &posix_timers) {
		struct k_itimer *t = list_entry(pos, struct k_itimer, list);

		if (t->state != TIMER_ARMED || t->notify == SIGEV_NONE)
			continue;
		if (timer_now(t) >= t->expires)
			timer_fire(t);
		if (t->state == TIMER_ARMED && !cpu_clock(t) && t->expires < next)
			next = t->expires;
	}
	next_expiry = next;
}

static DECLARE_WORK(timer_work, posix_timer_work);

void posix_timer_tick(void)
{
	if (nr_cpu_armed || (nr_armed && jiffies >= next_expiry))
		schedule_work(&timer_work);
}

int posix_timer_deliver(int sig, struct ksiginfo *info)
{
	struct k_itimer *t = lock_timer(info->pid);

	if (info->trapno != POSIX_TIMER_SIGNAL || !t || t->state != TIMER_REQUEUE_PENDING)
		return sig;
	t->overrun += forward(t) - 1;
	t->overrun_last = MAX(t->overrun, 0);
	t->overrun = 0;
	info->uid = (uint32_t)t->overrun_last; /* si_overrun */
	set_state(t, TIMER_ARMED);
	return sig;
}

void exit_itimers(struct signal_struct *sig)
{
	struct list_head *pos, *n;

	list_for_each_safe(pos, n, &posix_timers) {
		struct k_itimer *t = list_entry(pos, struct k_itimer, list);

		if (t->owner == sig) {
			set_state(t, TIMER_DISARMED);
			list_del(&t->list);
			kfree(t);
		}
	}
}

/* Linux's good_sigevent: the thread or process to signal, 0 if the sigevent is invalid */
static int good_sigevent(const struct sigevent *ev)
{
	struct task_struct *p;

	switch (ev->sigev_notify) {
	case SIGEV_THREAD_ID:
		p = find_task_by_pid(ev->sigev_tid);
		if (!p || p->signal != current->signal)
			return 0;
		if (ev->sigev_signo <= 0 || ev->sigev_signo > SIGRTMAX)
			return 0;
		return p->pid;
	case SIGEV_SIGNAL:
	case SIGEV_THREAD:
		if (ev->sigev_signo <= 0 || ev->sigev_signo > SIGRTMAX)
			return 0;
		/* fall through */
	case SIGEV_NONE:
		return current->tgid;
	}
	return 0;
}

long sys_timer_create(int64_t clock, uint64_t usevp, uint64_t uid)
{
	struct sigevent ev;
	struct k_itimer *t;
	int id;

	if (usevp && copy_from_user(&ev, usevp, sizeof(ev)))
		return -EFAULT;
	/* MONOTONIC_RAW and the coarse clocks cannot time; the alarm clocks need a wake-up
	 * RTC, which faultline lacks (as a Linux without one: after an id is taken). Another
	 * process's CPU clock (a negative id) and CLOCK_TAI: not here (docs/signals.md). */
	switch ((int)clock) {
	case CLOCK_REALTIME:
	case CLOCK_MONOTONIC:
	case CLOCK_PROCESS_CPUTIME_ID:
	case CLOCK_THREAD_CPUTIME_ID:
	case CLOCK_BOOTTIME:
	case CLOCK_REALTIME_ALARM:
	case CLOCK_BOOTTIME_ALARM:
		break;
	case 4: case 5: case 6:
		return -EOPNOTSUPP;
	default:
		return -EINVAL;
	}
	t = kzalloc(sizeof(*t));
	if (!t)
		return -EAGAIN;
	id = t->id = current->signal->posix_timer_id++;
	t->owner = current->signal;
	t->clock = (int)clock;
	t->clock_pid = clock == CLOCK_THREAD_CPUTIME_ID ? current->pid : current->tgid;
	if (usevp) {
		t->target = good_sigevent(&ev);
		t->notify = ev.sigev_notify == SIGEV_THREAD ? SIGEV_SIGNAL : ev.sigev_notify;
		t->signo = ev.sigev_signo;
		t->value = ev.sigev_value;
	} else {
		t->target = current->tgid;
		t->notify = SIGEV_SIGNAL;
		t->signo = SIGALRM;
		t->value = (uint64_t)id;
	}
	if (!t->target) {
		kfree(t);
		return -EINVAL;
	}
	if (copy_to_user(uid, &id, sizeof(id)) || clock >= CLOCK_REALTIME_ALARM) {
		kfree(t);
		return clock >= CLOCK_REALTIME_ALARM ? -EOPNOTSUPP : -EFAULT;
	}
	list_add_tail(&t->list, &posix_timers);
	return 0;
}

static uint64_t ts_to_ticks(const struct timespec64 *ts)
{
	return (uint64_t)ts->tv_sec * HZ + ((uint64_t)ts->tv_nsec + NSEC_PER_TICK - 1) /
	       NSEC_PER_TICK;
}

static struct timespec64 ticks_to_ts(uint64_t ticks)
{
	return (struct timespec64){ (int64_t)(ticks / HZ), (long)(ticks % HZ) * NSEC_PER_TICK };
}

static bool ts_valid(const struct timespec64 *ts)
{
	return ts->tv_sec >= 0 && ts->tv_nsec >= 0 && ts->tv_nsec < NSEC_PER_SEC;
}

/* Linux's common_timer_get: the time to the next expiry (a periodic timer whose signal waits
 * is moved on to its next period, the periods counted as overrun) and the interval. A
 * SIGEV_NONE timer is never queued, so Linux reads its expiry whatever its state: disarmed by
 * timer_settime, it still counts down to the time it had. */
static void common_timer_get(struct k_itimer *t, struct itimerspec *cur)
{
	bool none = t->notify == SIGEV_NONE;

	*cur = (struct itimerspec){ .it_interval = ticks_to_ts(t->interval) };
	if (!t->interval && t->state != TIMER_ARMED && !none)
		return;
	if (t->interval && (t->state == TIMER_REQUEUE_PENDING || none))
		t->overrun += forward(t);
	if (t->expires > timer_now(t))
		cur->it_value = ticks_to_ts(t->expires - timer_now(t));
	else if (!none)
		cur->it_value.tv_nsec = 1; /* due, its signal not sent yet: not 0 (disarmed) */
}

long sys_timer_gettime(int64_t id, uint64_t usetting)
{
	struct k_itimer *t = lock_timer((int)id);
	struct itimerspec cur;

	if (!t)
		return -EINVAL;
	common_timer_get(t, &cur);
	return copy_to_user(usetting, &cur, sizeof(cur)) ? -EFAULT : 0;
}

long sys_timer_getoverrun(int64_t id)
{
	struct k_itimer *t = lock_timer((int)id);

	return t ? t->overrun_last : -EINVAL;
}

/* The tick at which the timer's clock reads value (TIMER_ABSTIME), at least now */
static uint64_t abs_to_ticks(struct k_itimer *t, const struct timespec64 *value)
{
	struct timespec64 now;
	uint64_t v = ts_to_ticks(value), n;

	if (cpu_clock(t))
		return MAX(v, timer_now(t));
	if (t->clock == CLOCK_REALTIME)
		ktime_get_real_ts64(&now);
	else
		ktime_get_ts64(&now);
	n = (uint64_t)now.tv_sec * HZ + (uint64_t)now.tv_nsec / NSEC_PER_TICK;
	return jiffies + (v > n ? v - n : 0);
}

long sys_timer_settime(int64_t id, int64_t flags, uint64_t unew, uint64_t uold)
{
	struct itimerspec new, old = { 0 };
	struct k_itimer *t;

	if (!unew)
		return -EINVAL;
	if (copy_from_user(&new, unew, sizeof(new)))
		return -EFAULT;
	if (!ts_valid(&new.it_interval) || !ts_valid(&new.it_value))
		return -EINVAL;
	t = lock_timer((int)id);
	if (!t)
		return -EINVAL;
	if (uold)
		common_timer_get(t, &old);
	t->interval = 0;
	t->overrun_last = 0;
	set_state(t, TIMER_DISARMED);
	if (new.it_value.tv_sec || new.it_value.tv_nsec) {
		t->interval = ts_to_ticks(&new.it_interval);
		t->expires = (flags & TIMER_ABSTIME) ? abs_to_ticks(t, &new.it_value) :
						       timer_now(t) + ts_to_ticks(&new.it_value);
		set_state(t, TIMER_ARMED);
	}
	if (uold && copy_to_user(uold, &old, sizeof(old)))
		return -EFAULT;
	return 0;
}

long sys_timer_delete(int64_t id)
{
	struct k_itimer *t = lock_timer((int)id);

	if (!t)
		return -EINVAL;
	set_state(t, TIMER_DISARMED);
	list_del(&t->list);
	kfree(t);
	return 0;
}
