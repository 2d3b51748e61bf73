/* Native fuzz harness for the firmware's frame decoder (proto.c), built with ASan/UBSan.
 *
 *   fuzz-decoder run N SEED    N generated inputs; prints counts; exit 1 on a false accept
 *   fuzz-decoder lines         one hex frame per stdin line (without the delimiter) ->
 *                              "ok TYPE SEQ LEN" or "nak REASON SEQ" or "none"
 *
 * Inputs: random bytes; valid frames; valid frames with 1-3 flipped bits or one burst of
 * at most 16 bits in the packet (CRC-16/CCITT detects all of these: accepting one is a
 * false accept); valid frames with arbitrary damage after stuffing (bytes replaced,
 * inserted, deleted, truncated, spliced).  Every accepted frame must re-encode to the
 * exact input bytes; an accepted arbitrary-damage frame that differs from the original
 * is counted as a CRC collision (expected rate about 2^-16 of the frames that survive
 * the structural checks). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"

static uint64_t rng_state;
static uint32_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 11);
}

/* Feeds data + delimiter through a fresh receiver; returns the rx result. */
static uint8_t feed(const uint8_t *data, int n, packet_t *pkt, uint8_t *reason, uint8_t *seq)
{
    rx_t rx;
    memset(&rx, 0, sizeof rx);
    uint8_t result = RX_NONE;
    for (int i = 0; i < n; i++) {
        uint8_t r = proto_rx_byte(&rx, data[i], pkt, reason, seq);
        if (r != RX_NONE)
            result = r;      /* zeros inside random data end earlier frames */
    }
    uint8_t r = proto_rx_byte(&rx, 0, pkt, reason, seq);
    return r != RX_NONE ? r : result;
}

static int canonical(const packet_t *p, const uint8_t *data, int n)
{
    uint8_t enc[PROTO_MAX_ENCODED + 2];
    uint8_t m = proto_encode(p->type, p->seq, p->body, p->len, enc);
    return m - 1 == n && memcmp(enc, data, (size_t)n) == 0;
}

static int make_valid(uint8_t *raw, packet_t *orig)
{
    static const uint8_t types[] = {MSG_HELLO, MSG_PING, MSG_SHOW, MSG_BUZZ};
    uint8_t len = (uint8_t)(rnd() % (PROTO_MAX_BODY + 1));
    if (rnd() % 4 == 0)
        len = (uint8_t)(rnd() % 8);
    orig->type = types[rnd() % 4];
    orig->seq = (uint8_t)rnd();
    orig->len = len;
    for (int i = 0; i < len; i++)
        orig->body[i] = (rnd() % 3 == 0) ? 0 : (uint8_t)rnd();
    raw[0] = PROTO_VERSION;
    raw[1] = orig->type;
    raw[2] = orig->seq;
    raw[3] = len;
    memcpy(raw + 4, orig->body, len);
    uint16_t crc = proto_crc16(raw, (uint8_t)(4 + len));
    raw[4 + len] = (uint8_t)(crc >> 8);
    raw[5 + len] = (uint8_t)crc;
    return 6 + len;
}

static int same(const packet_t *a, const packet_t *b)
{
    return a->type == b->type && a->seq == b->seq && a->len == b->len && memcmp(a->body, b->body, a->len) == 0;
}

static int run(long n, uint64_t seed)
{
    rng_state = seed * 2654435761u + 88172645463325252ull;
    long accepted = 0, rejected = 0, false_accepts = 0, false_rejects = 0, collisions = 0, noncanonical = 0;
    long kinds[4] = {0, 0, 0, 0};
    uint8_t raw[PROTO_MAX_PACKET], data[600];
    packet_t pkt, orig;
    for (long it = 0; it < n; it++) {
        int kind = (int)(rnd() % 4);
        int m = 0, plen;
        kinds[kind]++;
        switch (kind) {
        case 0:                                   /* random bytes, mostly without zeros */
            m = (int)(rnd() % 300);
            for (int i = 0; i < m; i++) {
                data[i] = (uint8_t)rnd();
                if (data[i] == 0 && rnd() % 8)
                    data[i] = 1;
            }
            break;
        case 1:                                   /* a valid frame */
            plen = make_valid(raw, &orig);
            m = proto_cobs_encode(raw, (uint8_t)plen, data);
            break;
        case 2: {                                 /* bit errors the CRC must catch */
            plen = make_valid(raw, &orig);
            if (rnd() % 2) {
                int flips = 1 + (int)(rnd() % 3), done = 0;
                int pos[3] = {-1, -1, -1};
                while (done < flips) {
                    int b = (int)(rnd() % (uint32_t)(plen * 8));
                    if (b == pos[0] || b == pos[1] || b == pos[2])
                        continue;
                    pos[done++] = b;
                    raw[b / 8] ^= (uint8_t)(1 << (b % 8));
                }
            } else {
                int width = 2 + (int)(rnd() % 15), start = (int)(rnd() % (uint32_t)(plen * 8 - width + 1));
                raw[start / 8] ^= (uint8_t)(1 << (start % 8));
                int end = start + width - 1;
                raw[end / 8] ^= (uint8_t)(1 << (end % 8));
                for (int b = start + 1; b < end; b++)
                    if (rnd() % 2)
                        raw[b / 8] ^= (uint8_t)(1 << (b % 8));
            }
            m = proto_cobs_encode(raw, (uint8_t)plen, data);
            break;
        }
        default: {                                /* arbitrary damage to the stuffed frame */
            plen = make_valid(raw, &orig);
            m = proto_cobs_encode(raw, (uint8_t)plen, data);
            int edits = 1 + (int)(rnd() % 4);
            for (int e = 0; e < edits && m > 0; e++) {
                int at = (int)(rnd() % (uint32_t)m);
                switch (rnd() % 5) {
                case 0: data[at] = (uint8_t)(1 + rnd() % 255); break;
                case 1: if (m < 500) { memmove(data + at + 1, data + at, (size_t)(m - at)); data[at] = (uint8_t)(1 + rnd() % 255); m++; } break;
                case 2: memmove(data + at, data + at + 1, (size_t)(m - at - 1)); m--; break;
                case 3: m = at; break;
                default: data[at] ^= (uint8_t)(1 << (rnd() % 8)); if (!data[at]) data[at] = 1; break;
                }
            }
            break;
        }
        }
        uint8_t reason = 0, seq = 0;
        uint8_t r = feed(data, m, &pkt, &reason, &seq);
        int has_zero = memchr(data, 0, (size_t)m) != NULL;
        if (r == RX_PACKET) {
            accepted++;
            if (!has_zero && !canonical(&pkt, data, m))
                noncanonical++;
            if (kind == 2)
                false_accepts++;
            if (kind == 3 && !same(&pkt, &orig))
                collisions++;
            if (kind == 1 && !same(&pkt, &orig))
                false_accepts++;
        } else {
            rejected++;
            if (kind == 1)
                false_rejects++;
        }
    }
    printf("inputs %ld (random %ld, valid %ld, bit-errors %ld, damaged %ld)\n", n, kinds[0], kinds[1], kinds[2], kinds[3]);
    printf("accepted %ld rejected %ld\n", accepted, rejected);
    printf("false_accepts %ld false_rejects %ld noncanonical %ld crc_collisions %ld\n", false_accepts, false_rejects,
           noncanonical, collisions);
    return (false_accepts || false_rejects || noncanonical) ? 1 : 0;
}

static int lines(void)
{
    char line[2048];
    uint8_t data[1024];
    packet_t pkt;
    while (fgets(line, sizeof line, stdin)) {
        int m = 0;
        for (char *p = line; p[0] && p[1] && p[0] != '\n' && m < (int)sizeof data; p += 2) {
            unsigned v;
            sscanf(p, "%2x", &v);
            data[m++] = (uint8_t)v;
        }
        rx_t rx;
        memset(&rx, 0, sizeof rx);
        uint8_t reason = 0, seq = 0, r = RX_NONE;
        for (int i = 0; i < m; i++)
            r = proto_rx_byte(&rx, data[i], &pkt, &reason, &seq);
        r = proto_rx_byte(&rx, 0, &pkt, &reason, &seq);
        if (r == RX_PACKET)
            printf("ok %d %d %d\n", pkt.type, pkt.seq, pkt.len);
        else if (r == RX_ERROR)
            printf("nak %d %d\n", reason, seq);
        else
            printf("none\n");
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "lines") == 0)
        return lines();
    if (argc == 4 && strcmp(argv[1], "run") == 0)
        return run(atol(argv[2]), (uint64_t)atoll(argv[3]));
    fprintf(stderr, "usage: %s run N SEED | lines\n", argv[0]);
    return 2;
}
