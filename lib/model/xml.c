// SPDX-License-Identifier: GPL-2.0
/*
 * xml.c - the XML files of the tree's readers, read one way (xml.h)
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <libxml/parser.h>

#include "model-private.h"
#include "xml.h"

xmlDoc *model_xml_read(const char *buf, size_t len, const char *name,
		       struct skin_error *err)
{
	xmlParserCtxtPtr ctxt;
	xmlDoc *doc;

	if (len > INT32_MAX) {
		skin_error_set(err, name, 0, 0, "file too large");
		return NULL;
	}
	ctxt = xmlNewParserCtxt();
	if (!ctxt) {
		skin_err_oom(err, name);
		return NULL;
	}
	doc = xmlCtxtReadMemory(ctxt, buf, (int)len, name, NULL,
				XML_PARSE_NONET | XML_PARSE_NOERROR |
				XML_PARSE_NOWARNING);
	if (!doc) {
		const xmlError *e = xmlCtxtGetLastError(ctxt);
		char msg[300] = "not well-formed XML";
		size_t k;

		if (e && e->message) {
			snprintf(msg, sizeof(msg), "%s", e->message);
			k = strlen(msg);
			while (k && (msg[k - 1] == '\n' || msg[k - 1] == ' '))
				msg[--k] = '\0';
		}
		skin_error_set(err, name, e && e->line > 0 ? (unsigned int)e->line : 0,
			       e && e->int2 > 0 ? (unsigned int)e->int2 : 0,
			       "XML: %s", msg);
	}
	xmlFreeParserCtxt(ctxt);
	return doc;
}

unsigned int model_xml_line(const xmlNode *n)
{
	long l = xmlGetLineNo(n);

	return l > 0 ? (unsigned int)l : 0;
}
