/* personality(2) (Linux's kernel/exec_domain.c): the caller's execution domain and flags, as
 * a number it sets and reads; inherited by fork and clone, kept by exec but for the flags a
 * 64-bit or set-user-ID program drops. */
#include "kernel/process/personality.h"
#include "kernel/sched/sched.h"
#include "kernel/syscalls.h"

/* persona is an unsigned int: the register's low 32 bits; 0xffffffff only asks. Any value is
 * taken, as Linux takes it: the old one is the answer, never an error. */
long sys_personality(uint64_t persona)
{
	unsigned int old = current->personality;

	if ((unsigned int)persona != 0xffffffffU)
		current->personality = (unsigned int)persona;
	return old;
}

void personality_exec(bool secure)
{
	current->personality &= ~(unsigned int)READ_IMPLIES_EXEC;
	if (secure)
		current->personality &= ~(unsigned int)PER_CLEAR_ON_SETID;
}
