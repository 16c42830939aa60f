// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ropframe.c - the ETH boards' UDP datagrams, read and written
 * (skin/ropframe.h; docs/ETH.md names the owners' file of each fact)
 *
 * A ROP is walked as the boards' own parser walks it (EOtheParser.c with
 * EOrop.c): the head, then a data field only for set, say and sig
 * without a confirmation, its size rounded up to 4, then the signature
 * and the time that ctrl announces, after the data.  (The owners'
 * Wireshark dissector reads signature and time before the data: the ROP
 * boundaries come out the same, the fields' values do not; the boards'
 * C is what the boards run.)
 */
#include <string.h>

#include <skin/ropframe.h>

static const char *const verdict_names[SKIN_ETH_VERDICT_NR] = {
	[SKIN_ETH_OK]			= "ok",
	[SKIN_ETH_TRUNCATED]		= "truncated",
	[SKIN_ETH_BAD_START]		= "bad_start",
	[SKIN_ETH_BAD_SIZE]		= "bad_size",
	[SKIN_ETH_BAD_END]		= "bad_end",
	[SKIN_ETH_BAD_ROP_SIZE]		= "bad_rop_size",
	[SKIN_ETH_BAD_ROP_COUNT]	= "bad_rop_count",
	[SKIN_ETH_BAD_ROP_CTRL]		= "bad_rop_ctrl",
	[SKIN_ETH_BAD_ROP_CODE]		= "bad_rop_code",
	[SKIN_ETH_BAD_ROP_EMPTY]	= "bad_rop_empty",
	[SKIN_ETH_BAD_ARRAY_HEAD]	= "bad_array_head",
	[SKIN_ETH_BAD_ARRAY_COUNT]	= "bad_array_count",
	[SKIN_ETH_BAD_ITEM_LEN]		= "bad_item_len",
	[SKIN_ETH_BAD_ITEM_ID]		= "bad_item_id",
	[SKIN_ETH_FOREIGN]		= "foreign",
	[SKIN_ETH_BAD_PATCH]		= "bad_patch",
	[SKIN_ETH_DUPLICATE]		= "duplicate",
};

const char *skin_eth_verdict_name(unsigned int verdict)
{
	return verdict < SKIN_ETH_VERDICT_NR ? verdict_names[verdict] : NULL;
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static uint64_t get64(const uint8_t *p)
{
	return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}

/* EOrop.c: eo_rop_datafield_is_required() */
static bool rop_has_data(uint8_t ctrl, uint8_t opcode)
{
	return !(ctrl & SKIN_ROP_CTRL_CONF) &&
	       (opcode == SKIN_ROP_SET || opcode == SKIN_ROP_SAY ||
		opcode == SKIN_ROP_SIG);
}

static size_t pad4(size_t n)
{
	return (n + 3) & ~(size_t)3;
}

/*
 * The skin's array of CAN data in a ROP's data field of dsiz bytes:
 * checked whole, then (emit) each frame handed to fn.
 */
static enum skin_eth_verdict skin_array(const uint8_t *d, size_t dsiz,
					uint8_t patch, bool emit,
					skin_eth_can_fn fn, void *ctx,
					unsigned int *n_frames, size_t *fault)
{
	unsigned int count, i;

	if (dsiz < SKIN_ROP_ARRAY_HEAD || dsiz > SKIN_ROP_ARRAY_SIZE ||
	    d[0] != SKIN_ROP_ARRAY_CAPACITY || d[1] != SKIN_ROP_ITEM_SIZE)
		return SKIN_ETH_BAD_ARRAY_HEAD;
	count = d[2];
	if (count > SKIN_ROP_ARRAY_CAPACITY ||
	    SKIN_ROP_ARRAY_HEAD + count * SKIN_ROP_ITEM_SIZE > dsiz) {
		*fault += 2;
		return SKIN_ETH_BAD_ARRAY_COUNT;
	}
	for (i = 0; i < count; i++) {
		const uint8_t *it = d + SKIN_ROP_ARRAY_HEAD +
				    i * SKIN_ROP_ITEM_SIZE;
		uint16_t info = get16(it);
		struct skin_eth_can f;

		if ((info >> 12) > 8) {
			*fault += SKIN_ROP_ARRAY_HEAD + i * SKIN_ROP_ITEM_SIZE;
			return SKIN_ETH_BAD_ITEM_LEN;
		}
		if ((info & 0xfff) > 0x7ff) {
			*fault += SKIN_ROP_ARRAY_HEAD + i * SKIN_ROP_ITEM_SIZE;
			return SKIN_ETH_BAD_ITEM_ID;
		}
		if (!emit)
			continue;
		f.id = info & 0x7ff;
		f.len = (uint8_t)(info >> 12);
		f.patch = patch;
		memcpy(f.data, it + 2, sizeof(f.data));
		if (fn)
			fn(ctx, &f);
	}
	*n_frames += count;
	return SKIN_ETH_OK;
}

/*
 * The walk, once: checking (emit false), then, for a sound datagram,
 * again handing its frames over (emit true).
 */
static enum skin_eth_verdict walk(const uint8_t *p, size_t len,
				  struct skin_ropframe *info, bool emit,
				  skin_eth_can_fn fn, void *ctx)
{
	size_t off = SKIN_ROPFRAME_HEADER, end;
	unsigned int declared;

	memset(info, 0, sizeof(*info));
	if (len < SKIN_ROPFRAME_HEADER + SKIN_ROPFRAME_FOOTER) {
		info->fault_offset = len;
		return SKIN_ETH_TRUNCATED;
	}
	info->age_us = get64(p + 8);
	info->seq = get64(p + 16);
	if (get32(p) != SKIN_ROPFRAME_START)
		return SKIN_ETH_BAD_START;
	end = SKIN_ROPFRAME_HEADER + (size_t)get16(p + 4);
	if (end + SKIN_ROPFRAME_FOOTER != len) {
		info->fault_offset = 4;
		return SKIN_ETH_BAD_SIZE;
	}
	if (get32(p + end) != SKIN_ROPFRAME_END) {
		info->fault_offset = end;
		return SKIN_ETH_BAD_END;
	}
	declared = get16(p + 6);

	while (off < end) {
		const uint8_t *r = p + off;
		uint8_t ctrl, opcode;
		size_t dsiz = 0, size = SKIN_ROP_HEAD;
		uint32_t id32;
		enum skin_eth_verdict v;

		info->fault_offset = off;
		if (info->n_rops == declared)
			return SKIN_ETH_BAD_ROP_COUNT;	/* bytes beyond the
							   last ROP */
		if (end - off < SKIN_ROP_HEAD)
			return SKIN_ETH_BAD_ROP_SIZE;
		ctrl = r[0];
		opcode = r[1];
		id32 = get32(r + 4);
		if ((ctrl & SKIN_ROP_CTRL_VERSION) ||
		    (ctrl & SKIN_ROP_CTRL_CONF) == SKIN_ROP_CTRL_CONF)
			return SKIN_ETH_BAD_ROP_CTRL;
		if (opcode < SKIN_ROP_ASK || opcode > SKIN_ROP_RST)
			return SKIN_ETH_BAD_ROP_CODE;
		if (rop_has_data(ctrl, opcode)) {
			dsiz = get16(r + 2);
			if (!dsiz)
				return SKIN_ETH_BAD_ROP_EMPTY;
			size += pad4(dsiz);
		}
		if (ctrl & SKIN_ROP_CTRL_SIGN)
			size += 4;
		if (ctrl & SKIN_ROP_CTRL_TIME)
			size += 8;
		if (size > end - off)
			return SKIN_ETH_BAD_ROP_SIZE;

		if (SKIN_ROP_ID32_EP(id32) > SKIN_ROP_EP_SKIN) {
			info->n_unknown++;
		} else if (SKIN_ROP_ID32_EP(id32) == SKIN_ROP_EP_SKIN &&
			   SKIN_ROP_ID32_ENT(id32) == SKIN_ROP_SKIN_ENTITY &&
			   SKIN_ROP_ID32_TAG(id32) == SKIN_ROP_SKIN_TAG_CANDATA &&
			   dsiz) {
			/* the CAN data, as a board sends it (sig) or
			 * answers an ask (say) */
			info->fault_offset = off + SKIN_ROP_HEAD;
			v = skin_array(r + SKIN_ROP_HEAD, dsiz,
				       SKIN_ROP_ID32_INDEX(id32), emit, fn, ctx,
				       &info->n_frames, &info->fault_offset);
			if (v != SKIN_ETH_OK)
				return v;
			info->n_skin++;
			info->patches[SKIN_ROP_ID32_INDEX(id32) / 64] |=
				1ull << (SKIN_ROP_ID32_INDEX(id32) % 64);
		} else {
			info->n_other++;
		}
		info->n_rops++;
		off += size;
	}
	info->fault_offset = off;
	if (info->n_rops != declared)
		return SKIN_ETH_BAD_ROP_COUNT;
	info->fault_offset = 0;
	return SKIN_ETH_OK;
}

enum skin_eth_verdict skin_ropframe_parse(const void *buf, size_t len,
					  struct skin_ropframe *info,
					  skin_eth_can_fn fn, void *ctx)
{
	struct skin_ropframe local;
	enum skin_eth_verdict v;

	if (!info)
		info = &local;
	v = walk(buf, len, info, false, fn, ctx);
	if (v == SKIN_ETH_OK && fn)
		v = walk(buf, len, info, true, fn, ctx);
	return v;
}

void skin_ropframe_emit(const void *buf, size_t len, skin_eth_can_fn fn,
			void *ctx)
{
	struct skin_ropframe info;

	walk(buf, len, &info, true, fn, ctx);
}

/* ---- writing ------------------------------------------------------- */

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)v);
	put16(p + 2, (uint16_t)(v >> 16));
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)v);
	put32(p + 4, (uint32_t)(v >> 32));
}

static uint8_t *reserve(struct skin_ropframe_writer *w, size_t n)
{
	uint8_t *p;

	/* the footer must still fit, and ROP bytes fit 16 bits */
	if (w->overflow || n > w->cap - w->len ||
	    w->cap - w->len - n < SKIN_ROPFRAME_FOOTER ||
	    w->len + n - SKIN_ROPFRAME_HEADER > 0xffff) {
		w->overflow = true;
		return NULL;
	}
	p = w->buf + w->len;
	memset(p, 0, n);
	w->len += n;
	return p;
}

void skin_ropframe_begin(struct skin_ropframe_writer *w, void *buf,
			 size_t cap, uint64_t age_us, uint64_t seq)
{
	w->buf = buf;
	w->cap = cap;
	w->len = 0;
	w->n_rops = 0;
	w->overflow = cap < SKIN_ROPFRAME_HEADER + SKIN_ROPFRAME_FOOTER;
	if (w->overflow)
		return;
	memset(w->buf, 0, SKIN_ROPFRAME_HEADER);
	put32(w->buf, SKIN_ROPFRAME_START);
	put64(w->buf + 8, age_us);
	put64(w->buf + 16, seq);
	w->len = SKIN_ROPFRAME_HEADER;
}

void skin_ropframe_add_rop(struct skin_ropframe_writer *w, uint8_t ctrl,
			   uint8_t opcode, uint32_t id32, const void *data,
			   uint16_t dsiz, uint32_t sign, uint64_t time)
{
	size_t dfield = rop_has_data(ctrl, opcode) ? pad4(dsiz) : 0;
	size_t size = SKIN_ROP_HEAD + dfield +
		      (ctrl & SKIN_ROP_CTRL_SIGN ? 4 : 0) +
		      (ctrl & SKIN_ROP_CTRL_TIME ? 8 : 0);
	uint8_t *p = reserve(w, size), *tail;

	if (!p)
		return;
	p[0] = ctrl;
	p[1] = opcode;
	put16(p + 2, dsiz);
	put32(p + 4, id32);
	if (dfield && data)
		memcpy(p + SKIN_ROP_HEAD, data, dsiz);
	tail = p + SKIN_ROP_HEAD + dfield;
	if (ctrl & SKIN_ROP_CTRL_SIGN) {
		put32(tail, sign);
		tail += 4;
	}
	if (ctrl & SKIN_ROP_CTRL_TIME)
		put64(tail, time);
	w->n_rops++;
}

void skin_ropframe_add_skin(struct skin_ropframe_writer *w, uint8_t ctrl,
			    uint8_t patch, const struct skin_eth_can *frames,
			    unsigned int n, uint32_t sign, uint64_t time)
{
	uint8_t array[SKIN_ROP_ARRAY_SIZE] = { 0 };
	unsigned int i;

	if (n > SKIN_ROP_ARRAY_CAPACITY) {
		w->overflow = true;
		return;
	}
	array[0] = SKIN_ROP_ARRAY_CAPACITY;
	array[1] = SKIN_ROP_ITEM_SIZE;
	array[2] = (uint8_t)n;
	for (i = 0; i < n; i++) {
		uint8_t *it = array + SKIN_ROP_ARRAY_HEAD +
			      i * SKIN_ROP_ITEM_SIZE;

		put16(it, SKIN_ROP_ITEM_INFO(frames[i].len, frames[i].id));
		memcpy(it + 2, frames[i].data, sizeof(frames[i].data));
	}
	skin_ropframe_add_rop(w, ctrl, SKIN_ROP_SIG,
			      SKIN_ROP_ID32(SKIN_ROP_EP_SKIN,
					    SKIN_ROP_SKIN_ENTITY, patch,
					    SKIN_ROP_SKIN_TAG_CANDATA),
			      array, sizeof(array), sign, time);
}

size_t skin_ropframe_end(struct skin_ropframe_writer *w)
{
	if (w->overflow || w->n_rops > 0xffff ||
	    w->cap - w->len < SKIN_ROPFRAME_FOOTER)
		return 0;
	put16(w->buf + 4, (uint16_t)(w->len - SKIN_ROPFRAME_HEADER));
	put16(w->buf + 6, (uint16_t)w->n_rops);
	put32(w->buf + w->len, SKIN_ROPFRAME_END);
	w->len += SKIN_ROPFRAME_FOOTER;
	return w->len;
}
