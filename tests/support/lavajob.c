/* SPDX-License-Identifier: MIT */
#include <stdio.h>

#include "common/xmalloc.h"
#include "tests/support/lavajob.h"

/* One template for every lab test, so all of them boot the same way. */
char *
lavajob_template(const char *steps)
{
	char *t;

	xasprintf(&t, "device_type: {device_type}\njob_name: {job_name}\n"
	    "timeouts:\n  job: {minutes: 5}\n  action: {minutes: 2}\n"
	    "  connection: {minutes: 1}\npriority: {priority}\n"
	    "visibility: public\nactions:\n- deploy:\n    to: ssh\n"
	    "    os: debian\n    timeout: {minutes: 1}\n- boot:\n"
	    "    method: ssh\n    connection: ssh\n    prompts:\n"
	    "    - 'root@[^:]*:[^#]*#'\n    timeout: {minutes: 1}\n"
	    "- test:\n    timeout: {minutes: 2}\n    definitions:\n"
	    "    - repository:\n        metadata:\n"
	    "          format: Lava-Test Test Definition 1.0\n"
	    "          name: bench\n"
	    "          description: \"bisectd {benchmark} at {short}\"\n"
	    "        run:\n          steps:\n%s"
	    "      from: inline\n      name: bench\n"
	    "      path: inline/bench.yaml\n", steps);
	return t;
}

/* Every lab test reports the fixture's metrics the same way. */
char *
lavajob_report_script(const char *cmd)
{
	char *t;

	xasprintf(&t, "#!/bin/sh\nout=$(%s | tail -n 1)\n"
	    "for m in runtime_ms ops_per_sec; do\n"
	    "  v=$(printf '%%s\\n' \"$out\" | sed -n "
	    "\"s/.*\\\"$m\\\": *\\([-0-9.eE+]*\\).*/\\1/p\")\n"
	    "  lava-test-case \"$m\" --result pass --measurement \"$v\" "
	    "--units x\ndone\n", cmd);
	return t;
}
