/* The signal frame, laid out as Linux x86-64's struct rt_sigframe so that musl's and glibc's
 * handlers and restorers work unchanged: built on the user stack (or the alternate one) when
 * a handler is called, read back and checked by rt_sigreturn, which trusts none of it; and
 * the alternate stack it may go on (sigaltstack). */
#include "kernel/errno.h"
#include "kernel/printk/printk.h"
#include "kernel/sched/sched.h"
#include "kernel/arch/segment.h"
#include "kernel/signal/signal.h"
#include "kernel/lib/string.h"
#include "kernel/arch/uaccess.h"
#include "kernel/syscalls.h"
#include "mm/mmu.h"

/* struct sigcontext: what the handler sees of the interrupted registers (uc_mcontext). */
struct user_sigcontext {
	uint64_t r8, r9, r10, r11, r12, r13, r14, r15;
	uint64_t rdi, rsi, rbp, rbx, rdx, rax, rcx, rsp, rip, eflags;
	uint16_t cs, gs, fs, ss;
	uint64_t err, trapno, oldmask, cr2;
	uint64_t fpstate; /* the fxsave area, or 0: the handler's return resets the FPU */
	uint64_t reserved1[8];
};

struct user_ucontext {
	uint64_t uc_flags;
	uint64_t uc_link;
	struct user_stack_t uc_stack;
	struct user_sigcontext uc_mcontext;
	uint64_t uc_sigmask;
};

/* The handler is entered with %rsp at pretcode, as if called from the restorer. */
struct rt_sigframe {
	uint64_t pretcode; /* sa_restorer: libc's trampoline that calls rt_sigreturn */
	struct user_ucontext uc;
	uint8_t info[128]; /* siginfo_t */
};

_Static_assert(sizeof(struct user_sigcontext) == 256, "struct sigcontext is 256 bytes");
_Static_assert(sizeof(struct rt_sigframe) == 440, "struct rt_sigframe is 440 bytes");
_Static_assert(__builtin_offsetof(struct rt_sigframe, uc.uc_mcontext) == 48, "uc_mcontext");
_Static_assert(__builtin_offsetof(struct rt_sigframe, info) == 312, "siginfo");

#define UC_FP_XSTATE 0x1         /* fpstate is an xsave area (the magic words say so) */
#define UC_SIGCONTEXT_SS 0x2     /* the ss field is the real SS */
#define UC_STRICT_RESTORE_SS 0x4 /* rt_sigreturn must use that SS, not a fresh one */
/* The FPU state: the 512-byte fxsave image, then the 64-byte xsave header, then magic2, as
 * Linux writes it for x87 and SSE state. Its "software reserved" bytes 464..511 carry
 * magic1 and the sizes, so that user code may read the area as Linux's. */
#define FP_XSTATE_MAGIC1 0x46505853U
#define FP_XSTATE_MAGIC2 0x46505845U
#define XSTATE_SIZE 576
#define FPSTATE_SIZE (XSTATE_SIZE + 4)
#define XFEATURES_FP_SSE 3
/* RFLAGS bits a frame may set (Linux's FIX_EFLAGS): never IOPL, IF, NT, VM or the others. */
#define FIX_EFLAGS 0x50dd5UL /* AC RF OF DF TF SF ZF AF PF CF */
#define X86_EFLAGS_TF 0x100UL
#define X86_EFLAGS_DF 0x400UL
#define X86_EFLAGS_RF 0x10000UL

static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, sizeof(v));
}

static void put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, sizeof(v));
}

void siginfo_to_user(uint8_t buf[128], const struct ksiginfo *info)
{
	bool fault = info->signo == SIGSEGV || info->signo == SIGBUS || info->signo == SIGILL ||
		     info->signo == SIGFPE || info->signo == SIGTRAP;

	memset(buf, 0, 128);
	put32(buf, (uint32_t)info->signo);
	put32(buf + 8, (uint32_t)info->code);
	if (info->code == SI_KERNEL)
		return;
	if (fault && info->code > 0) {
		put64(buf + 16, info->addr);
	} else if (info->signo == SIGCHLD && info->code > 0) {
		put32(buf + 16, (uint32_t)info->pid);
		put32(buf + 20, info->uid);
		put32(buf + 24, (uint32_t)info->status);
	} else {
		put32(buf + 16, (uint32_t)info->pid);
		put32(buf + 20, (uint32_t)info->uid);
		put64(buf + 24, info->value); /* sigqueue's si_value */
	}
}

/* MXCSR bits the CPU accepts: fxrstor of any other faults in the kernel. */
static uint32_t mxcsr_mask(void)
{
	static uint32_t mask;
	uint8_t fx[512] __attribute__((aligned(16)));

	if (!mask) {
		memset(fx, 0, sizeof(fx));
		asm volatile("fxsave %0" : "=m"(fx));
		memcpy(&mask, fx + 28, sizeof(mask));
		if (!mask)
			mask = 0xffbf;
	}
	return mask;
}

bool setup_rt_frame(int sig, const struct k_sigaction *ka, const struct ksiginfo *info,
		    uint64_t oldmask, struct pt_regs *regs)
{
	struct task_sigstate *ss = &current->sigstate;
	uint8_t fp[FPSTATE_SIZE] __attribute__((aligned(64)));
	struct rt_sigframe f;
	struct user_sigcontext *sc = &f.uc.uc_mcontext;
	uint64_t sp = regs->rsp - 128; /* below the interrupted code's red zone */
	bool altstack = on_sig_stack(sp), fpok;
	uint64_t fpaddr;

	if (!(ka->sa_flags & SA_RESTORER))
		return false; /* x86-64 has no kernel trampoline: libc must give one */
	if (ka->sa_handler >= USER_TOP)
		return false; /* iretq to a non-canonical rip would fault in the kernel */
	if ((ka->sa_flags & SA_ONSTACK) && ss->sas_ss_size && !altstack) {
		sp = ss->sas_ss_sp + ss->sas_ss_size;
		altstack = true;
	}
	sp = ALIGN_DOWN(sp - FPSTATE_SIZE, 64);
	fpaddr = sp;
	/* The handler starts as a function does: %rsp + 8 a multiple of 16. */
	sp = ALIGN_DOWN(sp - sizeof(f), 16) - 8;
	if (altstack && !on_sig_stack(sp))
		return false; /* the alternate stack is full: never run off its end */

	/* The live FPU registers first: a copy below may sleep on a fault, and switch. */
	asm volatile("fxsave %0" : "=m"(*(uint8_t(*)[512])fp));
	memset(fp + 464, 0, FPSTATE_SIZE - 464);
	put32(fp + 464, FP_XSTATE_MAGIC1);
	put32(fp + 468, FPSTATE_SIZE);
	put64(fp + 472, XFEATURES_FP_SSE);
	put32(fp + 480, XSTATE_SIZE);
	put64(fp + 512, XFEATURES_FP_SSE); /* xsave header: xstate_bv */
	put32(fp + XSTATE_SIZE, FP_XSTATE_MAGIC2);

	memset(&f, 0, sizeof(f));
	f.pretcode = ka->sa_restorer;
	f.uc.uc_flags = UC_FP_XSTATE | UC_SIGCONTEXT_SS | UC_STRICT_RESTORE_SS;
	f.uc.uc_stack.ss_sp = ss->sas_ss_sp;
	f.uc.uc_stack.ss_size = ss->sas_ss_size;
	f.uc.uc_stack.ss_flags = !ss->sas_ss_size ? SS_DISABLE :
				 on_sig_stack(regs->rsp) ? SS_ONSTACK : 0;
	*sc = (struct user_sigcontext){
		.r8 = regs->r8, .r9 = regs->r9, .r10 = regs->r10, .r11 = regs->r11,
		.r12 = regs->r12, .r13 = regs->r13, .r14 = regs->r14, .r15 = regs->r15,
		.rdi = regs->rdi, .rsi = regs->rsi, .rbp = regs->rbp, .rbx = regs->rbx,
		.rdx = regs->rdx, .rax = regs->rax, .rcx = regs->rcx, .rsp = regs->rsp,
		.rip = regs->rip, .eflags = regs->rflags,
		.cs = (uint16_t)regs->cs, .ss = (uint16_t)regs->ss,
		.err = info->err, .trapno = info->trapno, .oldmask = oldmask,
		.cr2 = info->trapno == 14 ? info->addr : 0,
		.fpstate = fpaddr,
	};
	f.uc.uc_sigmask = oldmask;
	siginfo_to_user(f.info, info);

	fpok = !copy_to_user(fpaddr, fp, FPSTATE_SIZE);
	if (!fpok || copy_to_user(sp, &f, sizeof(f)))
		return false;

	regs->rdi = (uint64_t)sig;
	regs->rsi = sp + __builtin_offsetof(struct rt_sigframe, info);
	regs->rdx = sp + __builtin_offsetof(struct rt_sigframe, uc);
	regs->rax = 0; /* for handlers declared without a prototype (varargs) */
	regs->rip = ka->sa_handler;
	regs->rsp = sp;
	regs->cs = __USER_CS;
	regs->ss = __USER_DS;
	regs->rflags &= ~(X86_EFLAGS_DF | X86_EFLAGS_RF | X86_EFLAGS_TF);
	/* The handler starts with a clean FPU, as a called function may assume. */
	fpu_init_task(current);
	asm volatile("fxrstor %0" ::"m"(current->thread.fxsave));
	return true;
}

/* Check and apply the frame's registers: NULL, or why the frame is refused. */
static const char *restore_sigcontext(struct pt_regs *regs, const struct user_ucontext *uc)
{
	const struct user_sigcontext *sc = &uc->uc_mcontext;
	uint8_t fx[512] __attribute__((aligned(16)));
	uint32_t mxcsr = 0;

	if ((sc->cs | 3) != __USER_CS)
		return "code selector not the user's";
	if ((uc->uc_flags & UC_STRICT_RESTORE_SS) && (sc->ss | 3) != __USER_DS)
		return "stack selector not the user's";
	if (sc->rip >= USER_TOP)
		return "rip in the kernel half or not canonical";
	if (sc->rsp >= USER_TOP)
		return "rsp in the kernel half or not canonical";
	if (sc->fpstate && copy_from_user(fx, sc->fpstate, sizeof(fx)))
		return "FPU state not readable";
	memcpy(&mxcsr, fx + 24, sizeof(mxcsr));
	if (sc->fpstate && (mxcsr & ~mxcsr_mask()))
		return "reserved MXCSR bits set"; /* fxrstor would fault in the kernel */

	regs->r8 = sc->r8, regs->r9 = sc->r9, regs->r10 = sc->r10, regs->r11 = sc->r11;
	regs->r12 = sc->r12, regs->r13 = sc->r13, regs->r14 = sc->r14, regs->r15 = sc->r15;
	regs->rdi = sc->rdi, regs->rsi = sc->rsi, regs->rbp = sc->rbp, regs->rbx = sc->rbx;
	regs->rdx = sc->rdx, regs->rax = sc->rax, regs->rcx = sc->rcx, regs->rsp = sc->rsp;
	regs->rip = sc->rip;
	regs->rflags = (regs->rflags & ~FIX_EFLAGS) | (sc->eflags & FIX_EFLAGS);
	regs->cs = __USER_CS;
	regs->ss = __USER_DS;
	regs->error_code = (uint64_t)-1; /* no system call to restart in these registers */

	if (sc->fpstate) {
		asm volatile("fxrstor %0" ::"m"(fx));
	} else {
		fpu_init_task(current);
		asm volatile("fxrstor %0" ::"m"(current->thread.fxsave));
	}
	return NULL;
}

/* The restorer's syscall: the handler has returned past pretcode, so the frame starts 8 bytes
 * below %rsp. A frame that cannot be read or would give the process anything it could not
 * have had (kernel selectors, IOPL, a kernel or non-canonical rip) kills it with SIGSEGV. */
long sys_rt_sigreturn(void)
{
	struct pt_regs *regs = task_pt_regs(current);
	uint64_t frame = regs->rsp - 8;
	struct rt_sigframe f;
	const char *why = "frame not readable";

	if (!copy_from_user(&f, frame, sizeof(f)))
		why = restore_sigcontext(regs, &f.uc);
	if (why) {
		if (unhandled_signal(SIGSEGV))
			printk("signal: pid %d (%s): bad rt_sigreturn frame at %016lx (%s): "
			       "SIGSEGV\n", current->pid, current->comm, frame, why);
		force_sig(SIGSEGV);
		return (long)regs->rax;
	}
	current->blocked = f.uc.uc_sigmask & ~(sigmask(SIGKILL) | sigmask(SIGSTOP));
	/* The frame's alternate stack, unless the restored code runs on the current one. */
	(void)do_sigaltstack(f.uc.uc_stack.ss_sp, f.uc.uc_stack.ss_flags, f.uc.uc_stack.ss_size,
			     regs->rsp);
	return (long)regs->rax;
}

/* sigaltstack: where setup_rt_frame puts the frame of an SA_ONSTACK handler. */
bool on_sig_stack(uint64_t sp)
{
	struct task_sigstate *ss = &current->sigstate;

	return sp > ss->sas_ss_sp && sp - ss->sas_ss_sp <= ss->sas_ss_size;
}

long do_sigaltstack(uint64_t ss_sp, int ss_flags, uint64_t ss_size, uint64_t sp)
{
	struct task_sigstate *ss = &current->sigstate;

	if (on_sig_stack(sp))
		return -EPERM; /* not while running on it */
	if (ss_flags != 0 && ss_flags != SS_ONSTACK && ss_flags != SS_DISABLE)
		return -EINVAL;
	if (ss_flags == SS_DISABLE) {
		ss_sp = ss_size = 0;
	} else if (ss_size < MINSIGSTKSZ) {
		return -ENOMEM;
	}
	ss->sas_ss_sp = ss_sp;
	ss->sas_ss_size = ss_size;
	return 0;
}

long sys_sigaltstack(uint64_t uss, uint64_t uoss)
{
	struct task_sigstate *ss = &current->sigstate;
	uint64_t sp = task_pt_regs(current)->rsp;
	struct user_stack_t new, old = {
		.ss_sp = ss->sas_ss_sp,
		.ss_size = ss->sas_ss_size,
		.ss_flags = !ss->sas_ss_size ? SS_DISABLE : on_sig_stack(sp) ? SS_ONSTACK : 0,
	};
	long err;

	if (uss) {
		if (copy_from_user(&new, uss, sizeof(new)))
			return -EFAULT;
		err = do_sigaltstack(new.ss_sp, new.ss_flags, new.ss_size, sp);
		if (err)
			return err;
	}
	if (uoss && copy_to_user(uoss, &old, sizeof(old)))
		return -EFAULT;
	return 0;
}
