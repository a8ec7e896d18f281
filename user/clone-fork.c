/* clone-fork: clone(2) used as a C library's fork: the child's tid stored in its memory
 * (CLONE_CHILD_SETTID) and in the parent's (CLONE_PARENT_SETTID), the exit signal, a new
 * stack; kill(2) with a group's pid as glibc passes it (the register's upper half not set);
 * Linux's EINVAL for flag combinations that make no sense. Runs natively too. */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#define UTEST_NAME "clone-fork"
#include "utest.h"

static volatile int child_tid = -1, parent_tid = -1;

/* clone without a new stack returns twice, like fork */
static long raw_clone(unsigned long flags, void *stack, volatile int *ptid, volatile int *ctid)
{
	return syscall(SYS_clone, flags, stack, ptid, ctid, 0);
}

static void check_settid(void)
{
	int status = -1;
	long pid = raw_clone(CLONE_CHILD_SETTID | CLONE_PARENT_SETTID | SIGCHLD, NULL, &parent_tid,
			     &child_tid);

	if (pid == 0)
		_exit(child_tid == getpid() ? 0 : 1); /* the child's own copy holds its tid */
	CHECK(pid > 0);
	CHECK_EQ(parent_tid, pid);
	CHECK_EQ(child_tid, -1); /* the parent's copy is untouched */
	CHECK_EQ(waitpid((pid_t)pid, &status, 0), pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* A new stack: the child runs on it (the syscall returns there) and exits at once. */
static void check_stack(void)
{
	static char stack[16384] __attribute__((aligned(16)));
	uintptr_t top = (uintptr_t)(stack + sizeof(stack));
	int status = -1;
	long pid;

	/* the child must not return from a function: do the system call and exit in asm */
	asm volatile("xor %%r10d, %%r10d\n\t" /* no child_tid, no tls */
		     "xor %%r8d, %%r8d\n\t"
		     "syscall\n\t"
		     "test %%rax, %%rax\n\t"
		     "jnz 1f\n\t"
		     "mov %%rsp, %%rdi\n\t" /* exit status: 0 if on the new stack's top */
		     "sub %[top], %%rdi\n\t"
		     "mov $60, %%eax\n\t"
		     "syscall\n"
		     "1:"
		     : "=a"(pid)
		     : "0"((long)SYS_clone), "D"((long)SIGCHLD), "S"(top), "d"(0L), [top] "r"(top)
		     : "rcx", "r11", "r10", "r8", "memory");
	CHECK(pid > 0);
	CHECK_EQ(waitpid((pid_t)pid, &status, 0), pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* kill(-pgrp) with only the low 32 bits of the register set, as glibc's kill leaves it */
static void check_kill_group(void)
{
	int status = -1;
	pid_t pid = fork();
	long ret;

	if (pid == 0) {
		setpgid(0, 0);
		pause();
		_exit(1);
	}
	CHECK(pid > 0);
	setpgid(pid, pid);
	asm volatile("syscall"
		     : "=a"(ret)
		     : "0"((long)SYS_kill), "D"((unsigned long)(uint32_t)-pid), "S"((long)SIGKILL)
		     : "rcx", "r11", "memory");
	CHECK_EQ(ret, 0);
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
}

int main(void)
{
	check_settid();
	check_stack();
	check_kill_group();
	/* Linux's own checks: handlers shared without the memory, a thread without the handlers */
	CHECK_ERR(raw_clone(CLONE_SIGHAND | SIGCHLD, NULL, NULL, NULL), EINVAL);
	CHECK_ERR(raw_clone(CLONE_THREAD | CLONE_VM | SIGCHLD, NULL, NULL, NULL), EINVAL);
	return utest_done();
}
