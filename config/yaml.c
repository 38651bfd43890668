/* SPDX-License-Identifier: MIT */
/*
 * The YAML well-formedness check of rendered job templates, through
 * libyaml's parser: one document whose root is a mapping.
 */
#include <errno.h>

#include <yaml.h>

#include "common/error.h"
#include "config/config.h"

int
config_yaml_check(const char *text, size_t len, struct bd_error *err)
{
	yaml_parser_t parser;
	yaml_event_t ev;
	int rc = 0, depth = 0, done = 0, first = 1;

	if (!yaml_parser_initialize(&parser))
		return bd_error_set(err, -ENOMEM, "cannot start the YAML parser");
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	while (!done) {
		if (!yaml_parser_parse(&parser, &ev)) {
			rc = bd_error_set(err, -EINVAL, "YAML line %zu: %s",
			    parser.problem_mark.line + 1, parser.problem ?
			    parser.problem : "syntax error");
			break;
		}
		if (ev.type == YAML_MAPPING_START_EVENT ||
		    ev.type == YAML_SEQUENCE_START_EVENT ||
		    ev.type == YAML_SCALAR_EVENT) {
			if (depth == 0 && first &&
			    ev.type != YAML_MAPPING_START_EVENT) {
				rc = bd_error_set(err, -EINVAL, "YAML: a job "
				    "definition is a mapping");
				done = 1;
			}
			first = 0;
		}
		if (ev.type == YAML_MAPPING_START_EVENT ||
		    ev.type == YAML_SEQUENCE_START_EVENT)
			depth++;
		else if (ev.type == YAML_MAPPING_END_EVENT ||
		    ev.type == YAML_SEQUENCE_END_EVENT)
			depth--;
		else if (ev.type == YAML_STREAM_END_EVENT)
			done = 1;
		yaml_event_delete(&ev);
	}
	if (rc == 0 && first)
		rc = bd_error_set(err, -EINVAL, "YAML: the document is empty");
	yaml_parser_delete(&parser);
	return rc;
}
