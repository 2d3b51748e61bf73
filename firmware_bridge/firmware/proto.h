/* The bgref device protocol: COBS framing, CRC-16/CCITT, packet checks.
 * Plain C99 with no AVR dependency, so the same decoder runs in the firmware and,
 * compiled natively, in the fuzz harness.  See ../PROTOCOL.md. */
#ifndef BGREF_PROTO_H
#define BGREF_PROTO_H

#include <stdint.h>

#define PROTO_VERSION 1
#define PROTO_MAX_BODY 120
#define PROTO_HEADER 4
#define PROTO_CRC 2
#define PROTO_MAX_PACKET (PROTO_HEADER + PROTO_MAX_BODY + PROTO_CRC)
#define PROTO_MAX_ENCODED (PROTO_MAX_PACKET + 1)

enum msg_type {
    MSG_HELLO = 0x01, MSG_PING = 0x02, MSG_SHOW = 0x03, MSG_BUZZ = 0x04,
    MSG_INFO = 0x81, MSG_ACK = 0x82, MSG_NAK = 0x83
};

enum nak_reason {
    NAK_BAD_CRC = 1, NAK_BAD_COBS = 2, NAK_UNKNOWN_TYPE = 3, NAK_BAD_LENGTH = 4,
    NAK_OVERFLOW = 5, NAK_BAD_VERSION = 6, NAK_BAD_VALUE = 7
};

typedef struct {
    uint8_t type;
    uint8_t seq;
    uint8_t len;
    uint16_t crc;               /* the received CRC, used to recognise retransmissions */
    uint8_t body[PROTO_MAX_BODY];
} packet_t;

typedef struct {
    uint8_t buf[PROTO_MAX_ENCODED];
    uint8_t n;
    uint8_t overflow;
} rx_t;

enum rx_result { RX_NONE = 0, RX_PACKET = 1, RX_ERROR = 2 };

uint16_t proto_crc16_update(uint16_t crc, uint8_t byte);
uint16_t proto_crc16(const uint8_t *data, uint8_t n);

/* Returns the decoded length, or -1 for malformed input; never writes more than cap bytes. */
int16_t proto_cobs_decode(const uint8_t *in, uint8_t n, uint8_t *out, uint8_t cap);
/* Writes at most n + n/254 + 1 bytes, no delimiter; returns the length. */
uint8_t proto_cobs_encode(const uint8_t *in, uint8_t n, uint8_t *out);

/* Checks an unstuffed packet: 0 and *out filled, or the NAK reason (*seq set when known). */
uint8_t proto_check(const uint8_t *raw, uint8_t n, packet_t *out, uint8_t *seq);

/* Feeds one received byte: RX_PACKET (out filled), RX_ERROR (*reason, *seq), or RX_NONE. */
uint8_t proto_rx_byte(rx_t *rx, uint8_t byte, packet_t *out, uint8_t *reason, uint8_t *seq);
static inline uint8_t proto_rx_busy(const rx_t *rx) { return rx->n != 0 || rx->overflow; }

/* Encodes a whole frame with its 0x00 delimiter into out (>= PROTO_MAX_ENCODED + 1 bytes). */
uint8_t proto_encode(uint8_t type, uint8_t seq, const uint8_t *body, uint8_t len, uint8_t *out);

#endif
