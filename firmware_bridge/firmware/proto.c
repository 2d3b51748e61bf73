/* See proto.h.  No dynamic memory, no recursion, every index bounded. */
#include "proto.h"

#ifdef __AVR__
#include <util/crc16.h>
uint16_t proto_crc16_update(uint16_t crc, uint8_t byte) { return _crc_xmodem_update(crc, byte); }
#else
uint16_t proto_crc16_update(uint16_t crc, uint8_t byte)
{
    crc ^= (uint16_t)byte << 8;
    for (uint8_t i = 0; i < 8; i++)
        crc = (crc & 0x8000) ? (uint16_t)((crc << 1) ^ 0x1021) : (uint16_t)(crc << 1);
    return crc;
}
#endif

uint16_t proto_crc16(const uint8_t *data, uint8_t n)
{
    uint16_t crc = 0;
    for (uint8_t i = 0; i < n; i++)
        crc = proto_crc16_update(crc, data[i]);
    return crc;
}

int16_t proto_cobs_decode(const uint8_t *in, uint8_t n, uint8_t *out, uint8_t cap)
{
    uint8_t i = 0, o = 0;
    if (n == 0)
        return -1;
    while (i < n) {
        uint8_t code = in[i];
        if (code == 0 || (uint16_t)i + code > n)
            return -1;
        for (uint8_t k = 1; k < code; k++) {
            uint8_t b = in[i + k];
            if (b == 0 || o >= cap)
                return -1;
            out[o++] = b;
        }
        i = (uint8_t)(i + code);
        if (code != 0xFF && i < n) {
            if (o >= cap)
                return -1;
            out[o++] = 0;
        }
    }
    return o;
}

uint8_t proto_cobs_encode(const uint8_t *in, uint8_t n, uint8_t *out)
{
    uint8_t code_pos = 0, o = 1, code = 1;
    for (uint8_t i = 0; i < n; i++) {
        if (in[i] == 0) {
            out[code_pos] = code;
            code_pos = o++;
            code = 1;
            continue;
        }
        out[o++] = in[i];
        if (++code == 0xFF) {
            out[code_pos] = code;
            code_pos = o++;
            code = 1;
        }
    }
    out[code_pos] = code;
    return o;
}

static uint8_t known_host_type(uint8_t t) { return t >= MSG_HELLO && t <= MSG_BUZZ; }

uint8_t proto_check(const uint8_t *raw, uint8_t n, packet_t *out, uint8_t *seq)
{
    *seq = 0;
    if (n < PROTO_HEADER + PROTO_CRC)
        return NAK_BAD_LENGTH;
    if (n > PROTO_MAX_PACKET)
        return NAK_OVERFLOW;
    uint16_t crc = (uint16_t)((uint16_t)raw[n - 2] << 8 | raw[n - 1]);
    if (proto_crc16(raw, (uint8_t)(n - 2)) != crc)
        return NAK_BAD_CRC;
    *seq = raw[2];
    if (raw[0] != PROTO_VERSION)
        return NAK_BAD_VERSION;
    if (raw[3] != n - PROTO_HEADER - PROTO_CRC)
        return NAK_BAD_LENGTH;
    if (!known_host_type(raw[1]))
        return NAK_UNKNOWN_TYPE;
    out->type = raw[1];
    out->seq = raw[2];
    out->len = raw[3];
    out->crc = crc;
    for (uint8_t i = 0; i < out->len; i++)
        out->body[i] = raw[PROTO_HEADER + i];
    return 0;
}

uint8_t proto_rx_byte(rx_t *rx, uint8_t byte, packet_t *out, uint8_t *reason, uint8_t *seq)
{
    if (byte != 0) {
        if (rx->n >= PROTO_MAX_ENCODED)
            rx->overflow = 1;
        else
            rx->buf[rx->n++] = byte;
        return RX_NONE;
    }
    uint8_t n = rx->n, overflow = rx->overflow;
    rx->n = 0;
    rx->overflow = 0;
    *seq = 0;
    if (overflow) {
        *reason = NAK_OVERFLOW;
        return RX_ERROR;
    }
    if (n == 0)
        return RX_NONE;             /* idle delimiters between frames */
    uint8_t raw[PROTO_MAX_PACKET];
    int16_t len = proto_cobs_decode(rx->buf, n, raw, sizeof raw);
    if (len < 0) {
        *reason = NAK_BAD_COBS;
        return RX_ERROR;
    }
    *reason = proto_check(raw, (uint8_t)len, out, seq);
    return *reason ? RX_ERROR : RX_PACKET;
}

uint8_t proto_encode(uint8_t type, uint8_t seq, const uint8_t *body, uint8_t len, uint8_t *out)
{
    uint8_t raw[PROTO_MAX_PACKET];
    if (len > PROTO_MAX_BODY)
        len = PROTO_MAX_BODY;
    raw[0] = PROTO_VERSION;
    raw[1] = type;
    raw[2] = seq;
    raw[3] = len;
    for (uint8_t i = 0; i < len; i++)
        raw[PROTO_HEADER + i] = body[i];
    uint16_t crc = proto_crc16(raw, (uint8_t)(PROTO_HEADER + len));
    raw[PROTO_HEADER + len] = (uint8_t)(crc >> 8);
    raw[PROTO_HEADER + len + 1] = (uint8_t)crc;
    uint8_t o = proto_cobs_encode(raw, (uint8_t)(PROTO_HEADER + len + PROTO_CRC), out);
    out[o++] = 0;
    return o;
}
