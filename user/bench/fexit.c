/*
 * fexit: the program fbench's lat_proc_exec row execs (docs/bench.md): it exits at once, so
 * the row measures fork + exec + exit + wait and nothing of a program's own work.
 */
int main(void)
{
	return 0;
}
