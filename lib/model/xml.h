/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xml.h - the XML files of the tree's readers (URDF geometry, a robot's
 * robots-configuration folder), read one way
 *
 * libxml2 with no network, no DTD and no entity substitution: a file
 * names what it is, it never fetches or expands anything.  libxml2's own
 * messages are off; a document that does not parse is reported once, as
 * FILE:LINE:COL with libxml2's reason, through skin_error_set().
 */
#ifndef SKIN_MODEL_XML_H
#define SKIN_MODEL_XML_H

#include <stddef.h>

#include <libxml/tree.h>

struct skin_error;

/* The document of @len bytes at @buf, named @name in errors; NULL with
 * *err set (not well-formed, too large, out of memory).  The caller
 * frees it with xmlFreeDoc(). */
xmlDoc *model_xml_read(const char *buf, size_t len, const char *name,
		       struct skin_error *err);

/* The line an element starts at, 0 when libxml2 does not know it. */
unsigned int model_xml_line(const xmlNode *n);

#endif
