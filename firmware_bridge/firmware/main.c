/* bgref LED/buzzer device firmware: ATmega328P at 16 MHz (Arduino Uno/Nano).
 *
 *   UART0 115200 8N1, interrupt-driven receive and transmit rings
 *   PD6 (Arduino D6)  WS2812 data, 27 LEDs: points 1-24 (White's numbering), bar, White's tray, Black's tray
 *   PB0 (Arduino D8)  active buzzer (through a transistor), high = sounding
 *   PB5 (Arduino D13) status LED
 *   Timer0 CTC 1 kHz  the millisecond tick; it also runs the buzzer pattern, so beeps are exact
 *
 * The protocol is in ../PROTOCOL.md; the Python emulator (../emulator.py) is the same logic. */
#include <avr/eeprom.h>
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>
#include <avr/wdt.h>
#include <string.h>

#include "proto.h"

#define FW_MAJOR 1
#define FW_MINOR 0
#define FW_PATCH 0
#define N_LEDS 27
#define SAFE_TIMEOUT_MS 3000
#define RX_QUIET_MS 2           /* refresh the LEDs only after this long without a received byte */
#define MAX_STEPS 8

#define WS_PORT PORTD
#define WS_DDR DDRD
#define WS_BIT 6
#define BUZ_BIT 0
#define STATUS_BIT 5

enum { BLINK_STEADY = 0, BLINK_SLOW = 1, BLINK_FAST = 2, BLINK_FLASH = 3 };
enum { STATUS_OFF = 0, STATUS_ON = 1, STATUS_SLOW = 2, STATUS_FAST = 3 };

/* ---- UART rings ---------------------------------------------------------------------------- */
#define RX_SIZE 256
#define TX_SIZE 64
static volatile uint8_t rx_ring[RX_SIZE];
static volatile uint8_t rx_head, rx_tail;
static volatile uint8_t tx_ring[TX_SIZE];
static volatile uint8_t tx_head, tx_tail;
static volatile uint32_t ms_now;
static volatile uint32_t last_byte_ms;

ISR(USART_RX_vect)
{
    uint8_t b = UDR0;
    uint8_t next = (uint8_t)(rx_head + 1);    /* RX_SIZE == 256: wraps by itself */
    if (next != rx_tail) {
        rx_ring[rx_head] = b;
        rx_head = next;
    }
    last_byte_ms = ms_now;
}

ISR(USART_UDRE_vect)
{
    if (tx_head != tx_tail) {
        UDR0 = tx_ring[tx_tail];
        tx_tail = (uint8_t)((tx_tail + 1) % TX_SIZE);
    } else {
        UCSR0B &= (uint8_t)~_BV(UDRIE0);
    }
}

static void uart_init(void)
{
    UCSR0A = _BV(U2X0);
    UBRR0 = 16;                               /* 16 MHz / (8 * 17) = 117647 baud, 2.1 % off 115200 */
    UCSR0C = _BV(UCSZ01) | _BV(UCSZ00);
    UCSR0B = _BV(RXEN0) | _BV(TXEN0) | _BV(RXCIE0);
}

static void uart_write(const uint8_t *data, uint8_t n)
{
    for (uint8_t i = 0; i < n; i++) {
        uint8_t next = (uint8_t)((tx_head + 1) % TX_SIZE);
        while (next == tx_tail)
            ;                                 /* the UDRE interrupt drains the ring */
        tx_ring[tx_head] = data[i];
        tx_head = next;
        UCSR0B |= _BV(UDRIE0);
    }
}

/* ---- buzzer, run from the tick ------------------------------------------------------------- */
static volatile uint16_t buz_on[MAX_STEPS], buz_off[MAX_STEPS];
static volatile uint8_t buz_n, buz_rep, buz_step, buz_phase_on, buz_active, buz_start;
static volatile uint16_t buz_left;

static void buz_pin(uint8_t on)
{
    if (on)
        PORTB |= _BV(BUZ_BIT);
    else
        PORTB &= (uint8_t)~_BV(BUZ_BIT);
}

/* Move to the next non-empty half-step; called with interrupts off. */
static void buz_advance(void)
{
    for (;;) {
        if (buz_phase_on) {
            buz_phase_on = 0;
            buz_left = buz_off[buz_step];
        } else {
            if (++buz_step >= buz_n) {
                buz_step = 0;
                if (--buz_rep == 0) {
                    buz_active = 0;
                    buz_pin(0);
                    return;
                }
            }
            buz_phase_on = 1;
            buz_left = buz_on[buz_step];
        }
        if (buz_left)
            break;
    }
    buz_pin(buz_phase_on);
}

ISR(TIMER0_COMPA_vect)
{
    ms_now++;
    if (buz_start) {                          /* a new pattern starts exactly on a tick */
        buz_start = 0;
        buz_active = 1;
        buz_step = 0;
        buz_phase_on = 1;
        buz_left = buz_on[0];
        if (buz_left)
            buz_pin(1);
        else
            buz_advance();
    } else if (buz_active && --buz_left == 0) {
        buz_advance();
    }
}

static void buz_stop(void)
{
    cli();
    buz_start = 0;
    buz_active = 0;
    buz_pin(0);
    sei();
}

static uint32_t millis(void)
{
    uint8_t s = SREG;
    cli();
    uint32_t t = ms_now;
    SREG = s;
    return t;
}

/* ---- WS2812 ---------------------------------------------------------------------------------- */
/* 20 cycles per bit (1.25 us): high 5 cycles (0.31 us) for a 0, 12 cycles (0.75 us) for a 1. */
static void ws2812_send(const uint8_t *grb, uint16_t n)
{
    uint8_t hi = WS_PORT | _BV(WS_BIT);
    uint8_t lo = WS_PORT & (uint8_t)~_BV(WS_BIT);
    uint8_t s = SREG;
    cli();
    while (n--) {
        uint8_t byte = *grb++;
        uint8_t bits = 8;
        __asm__ volatile(
            "1:                 \n\t"
            "out %[port], %[hi] \n\t"   /* 0: rise */
            "nop                \n\t"
            "nop                \n\t"
            "nop                \n\t"
            "sbrs %[byte], 7    \n\t"   /* 4 */
            "out %[port], %[lo] \n\t"   /* 5: fall for a 0 */
            "lsl %[byte]        \n\t"   /* 6 */
            "nop                \n\t"
            "nop                \n\t"
            "nop                \n\t"
            "nop                \n\t"
            "nop                \n\t"
            "out %[port], %[lo] \n\t"   /* 12: fall for a 1 */
            "nop                \n\t"
            "nop                \n\t"
            "nop                \n\t"
            "nop                \n\t"
            "dec %[bits]        \n\t"
            "brne 1b            \n\t"   /* 20 */
            : [byte] "+r"(byte), [bits] "+r"(bits)
            : [port] "I"(_SFR_IO_ADDR(WS_PORT)), [hi] "r"(hi), [lo] "r"(lo));
    }
    SREG = s;
}

/* ---- device state ------------------------------------------------------------------------------ */
static uint8_t leds[N_LEDS][4];              /* r, g, b, blink */
static uint8_t status_mode = STATUS_ON;
static uint8_t online;
static uint32_t last_rx_ms, phase_start;
static uint8_t shown_grb[N_LEDS * 3];
static uint8_t shown_valid;
static uint8_t last_seq_valid, last_seq;
static uint16_t last_crc;
static uint8_t last_reply[24], last_reply_len;
static uint16_t reset_count;
static uint8_t reset_cause;

static const uint8_t safe_leds[2] = {25, 26};

static uint8_t blink_on(uint8_t blink, uint32_t phase)
{
    switch (blink) {
    case BLINK_SLOW: return phase % 1000 < 500;
    case BLINK_FAST: return phase % 250 < 125;
    case BLINK_FLASH: return phase % 1000 < 100;
    default: return 1;
    }
}

static uint8_t status_on(uint8_t mode, uint32_t phase)
{
    switch (mode) {
    case STATUS_OFF: return 0;
    case STATUS_SLOW: return blink_on(BLINK_SLOW, phase);
    case STATUS_FAST: return blink_on(BLINK_FAST, phase);
    default: return 1;
    }
}

/* The frame the strip should show now, GRB order; returns the status LED level. */
static uint8_t compose(uint8_t *grb, uint32_t now)
{
    uint32_t phase = now - phase_start;
    memset(grb, 0, N_LEDS * 3);
    if (!online) {                            /* "referee offline": trays slow amber, status fast */
        if (blink_on(BLINK_SLOW, phase))
            for (uint8_t k = 0; k < 2; k++) {
                grb[3 * safe_leds[k]] = 96;
                grb[3 * safe_leds[k] + 1] = 255;
            }
        return status_on(STATUS_FAST, phase);
    }
    for (uint8_t i = 0; i < N_LEDS; i++)
        if (blink_on(leds[i][3], phase)) {
            grb[3 * i] = leds[i][1];
            grb[3 * i + 1] = leds[i][0];
            grb[3 * i + 2] = leds[i][2];
        }
    return status_on(status_mode, phase);
}

static void refresh_if_due(uint32_t now, uint8_t host_waiting)
{
    uint8_t grb[N_LEDS * 3];
    uint8_t st = compose(grb, now);
    if (st)
        PORTB |= _BV(STATUS_BIT);
    else
        PORTB &= (uint8_t)~_BV(STATUS_BIT);
    if (shown_valid && memcmp(grb, shown_grb, sizeof grb) == 0)
        return;
    /* WS2812 timing needs interrupts off for ~0.8 ms: never while a frame is arriving. */
    cli();
    uint8_t quiet = rx_head == rx_tail && (host_waiting || (uint32_t)(ms_now - last_byte_ms) >= RX_QUIET_MS);
    sei();
    if (!quiet)
        return;
    ws2812_send(grb, sizeof grb);
    memcpy(shown_grb, grb, sizeof grb);
    shown_valid = 1;
}

static void send(uint8_t type, uint8_t seq, const uint8_t *body, uint8_t len, uint8_t remember)
{
    uint8_t frame[PROTO_MAX_ENCODED + 1];
    uint8_t n = proto_encode(type, seq, body, len, frame);
    uint8_t s = SREG;
    sei();                                    /* the TX ring drains from its interrupt */
    uart_write(frame, n);
    SREG = s;
    if (remember && n <= sizeof last_reply) {
        memcpy(last_reply, frame, n);
        last_reply_len = n;
    }
}

static void nak(uint8_t seq, uint8_t reason) { send(MSG_NAK, seq, &reason, 1, 0); }

static void send_info(uint8_t seq, uint8_t unsolicited)
{
    uint8_t body[10] = {PROTO_VERSION, FW_MAJOR, FW_MINOR, FW_PATCH, N_LEDS, 0x03,
                        (uint8_t)(reset_count >> 8), (uint8_t)reset_count, reset_cause, unsolicited};
    send(MSG_INFO, seq, body, sizeof body, 0);
}

static uint8_t apply_show(const packet_t *p)
{
    if (p->len != 1 + 4 * N_LEDS)
        return NAK_BAD_LENGTH;
    if (p->body[0] > STATUS_FAST)
        return NAK_BAD_VALUE;
    for (uint8_t i = 0; i < N_LEDS; i++)
        if (p->body[4 + 4 * i] > BLINK_FLASH)
            return NAK_BAD_VALUE;
    uint8_t changed = p->body[0] != status_mode || memcmp(leds, p->body + 1, sizeof leds) != 0;
    if (changed) {
        status_mode = p->body[0];
        memcpy(leds, p->body + 1, sizeof leds);
        phase_start = millis();
    }
    return 0;
}

static uint8_t apply_buzz(const packet_t *p)
{
    if (p->len < 2 || p->body[1] > MAX_STEPS || p->len != 2 + 4 * p->body[1])
        return NAK_BAD_LENGTH;
    if (p->body[0] == 0)
        return NAK_BAD_VALUE;
    uint8_t n = p->body[1];
    uint32_t total = 0;
    buz_stop();
    for (uint8_t i = 0; i < n; i++) {
        const uint8_t *s = p->body + 2 + 4 * i;
        buz_on[i] = (uint16_t)(s[0] << 8 | s[1]);
        buz_off[i] = (uint16_t)(s[2] << 8 | s[3]);
        total += (uint32_t)buz_on[i] + buz_off[i];
    }
    if (n && total) {
        cli();
        buz_n = n;
        buz_rep = p->body[0];
        buz_start = 1;
        sei();
    }
    return 0;
}

static void handle(const packet_t *p)
{
    last_rx_ms = millis();
    if (!online) {
        online = 1;
        phase_start = last_rx_ms;
    }
    if (p->type == MSG_HELLO) {
        last_seq_valid = 0;
        send_info(p->seq, 0);
        return;
    }
    if (last_seq_valid && p->seq == last_seq && p->crc == last_crc) {
        uint8_t s = SREG;                     /* a retransmission: do not apply twice */
        sei();
        uart_write(last_reply, last_reply_len);
        SREG = s;
        return;
    }
    uint8_t err = 0;
    if (p->type == MSG_SHOW)
        err = apply_show(p);
    else if (p->type == MSG_BUZZ)
        err = apply_buzz(p);
    else if (p->type == MSG_PING && p->len != 0)
        err = NAK_BAD_LENGTH;
    if (err) {
        nak(p->seq, err);
        return;
    }
    /* The host sends nothing until it has our ACK (stop and wait): the safest moment to
     * refresh the strip with interrupts off is now, before answering. */
    if (p->type == MSG_SHOW)
        refresh_if_due(millis(), 1);
    uint8_t t = p->type;
    send(MSG_ACK, p->seq, &t, 1, 1);
    last_seq_valid = 1;
    last_seq = p->seq;
    last_crc = p->crc;
}

static rx_t rx;
static packet_t pkt;

int main(void)
{
    reset_cause = MCUSR;
    MCUSR = 0;
    wdt_disable();

    reset_count = eeprom_read_word((uint16_t *)0);
    if (reset_count == 0xFFFF)
        reset_count = 0;
    reset_count++;
    eeprom_update_word((uint16_t *)0, reset_count);

    WS_DDR |= _BV(WS_BIT);
    DDRB |= _BV(BUZ_BIT) | _BV(STATUS_BIT);
    uart_init();
    TCCR0A = _BV(WGM01);                      /* CTC */
    OCR0A = 249;                              /* 16 MHz / 64 / 250 = 1 kHz */
    TCCR0B = _BV(CS01) | _BV(CS00);
    TIMSK0 = _BV(OCIE0A);
    set_sleep_mode(SLEEP_MODE_IDLE);
    sei();

    send_info(0, 1);                          /* hello, unasked, after every reset */

    for (;;) {
        while (rx_head != rx_tail) {
            uint8_t b = rx_ring[rx_tail];
            rx_tail = (uint8_t)(rx_tail + 1);
            uint8_t reason, seq;
            uint8_t r = proto_rx_byte(&rx, b, &pkt, &reason, &seq);
            if (r == RX_PACKET)
                handle(&pkt);
            else if (r == RX_ERROR)
                nak(seq, reason);
        }
        uint32_t now = millis();
        if (online && now - last_rx_ms >= SAFE_TIMEOUT_MS) {
            online = 0;
            phase_start = now;
            buz_stop();
        }
        if (!proto_rx_busy(&rx))
            refresh_if_due(now, 0);
        cli();
        if (rx_head == rx_tail) {
            sleep_enable();
            sei();
            sleep_cpu();                      /* the tick or a received byte wakes us */
            sleep_disable();
        }
        sei();
    }
}
