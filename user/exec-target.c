/* exec-target: started by exec as {"exec-target", "alpha", "beta"} with the environment
 * {"FAULTLINE_TEST=1"}; checks both exactly and exits 7 (1 on any mismatch). Started with an
 * empty or NULL argv it finds the one empty string today's Linux puts there, and exits 8. */
#define UTEST_NAME "exec-target"
#include "utest.h"
#include <stdlib.h>

int main(int argc, char **argv, char **envp)
{
	if (argc >= 1 && argv[0][0] == '\0')
		return argc == 1 && argv[1] == NULL ? 8 : 1;
	CHECK_EQ(argc, 3);
	CHECK(strcmp(argv[0], "exec-target") == 0);
	CHECK(argc > 1 && strcmp(argv[1], "alpha") == 0);
	CHECK(argc > 2 && strcmp(argv[2], "beta") == 0);
	CHECK(argv[argc] == NULL);
	CHECK(envp[0] && strcmp(envp[0], "FAULTLINE_TEST=1") == 0);
	CHECK(envp[0] && envp[1] == NULL);
	CHECK(getenv("FAULTLINE_TEST") && strcmp(getenv("FAULTLINE_TEST"), "1") == 0);
	return utest_fails ? 1 : 7;
}
