/* spin-exit: burns a little CPU, then exits with status 3, so the runner must report a non-zero
 * exit status exactly rather than just "finished". */
int main(void)
{
	volatile unsigned long n;

	for (n = 0; n < 1000000; n++)
		;
	return 3;
}
