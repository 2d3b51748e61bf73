/* bgref-sim: runs the bgref firmware in simavr with UART0 on a pseudo-terminal.
 *
 *   bgref-sim FIRMWARE.elf
 *
 * Prints, one per line on stdout (times in CPU cycles at 16 MHz):
 *   BGREF PTY /dev/pts/N                 the port to open (not the global /tmp/simavr-uart0 link)
 *   BGREF LED <cycle> <81 hex bytes>     one WS2812 frame decoded from PD6, as RGB per LED
 *   BGREF WSERR <cycle> <bits>           a WS2812 burst that was not exactly 27 LEDs
 *   BGREF PIN <cycle> buzzer|status 0|1  the buzzer (PB0) or status LED (PB5) changed
 *   BGREF RESET <cycle>                  the MCU was reset on request
 * Reads commands on stdin: "reset" (like the reset button or a DTR pulse), "quit".
 * EOF on stdin or SIGTERM ends the program with _exit(): uart_pty_stop() can hang. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "avr_ioport.h"
#include "parts/uart_pty.h"
#include "sim_avr.h"
#include "sim_elf.h"

#define N_LEDS 27
#define WS_BITS (N_LEDS * 24)
#define CPU_HZ 16000000UL
#define WS_ONE_THRESHOLD 8          /* high for more than 8 cycles (0.5 us) is a 1 */
#define WS_LATCH_CYCLES 800         /* low for 50 us latches the frame */

static avr_t *avr;
static uart_pty_t pty;
static volatile int want_reset, want_quit;

static int ws_level;
static avr_cycle_count_t ws_rise;
static int ws_nbits;
static uint8_t ws_bytes[WS_BITS / 8 + 1];
static int buz_level = -1, status_level = -1;

static void emit_frame(avr_cycle_count_t when)
{
    if (ws_nbits == 0)
        return;
    if (ws_nbits != WS_BITS) {
        printf("BGREF WSERR %llu %d\n", (unsigned long long)when, ws_nbits);
    } else {
        printf("BGREF LED %llu ", (unsigned long long)when);
        for (int i = 0; i < N_LEDS; i++)    /* the chain takes G, R, B */
            printf("%02x%02x%02x", ws_bytes[3 * i + 1], ws_bytes[3 * i], ws_bytes[3 * i + 2]);
        printf("\n");
    }
    ws_nbits = 0;
    memset(ws_bytes, 0, sizeof ws_bytes);
}

static avr_cycle_count_t ws_latch(avr_t *a, avr_cycle_count_t when, void *param)
{
    (void)a; (void)param;
    emit_frame(when);
    return 0;
}

static void ws_hook(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq; (void)param;
    int level = value != 0;
    if (level == ws_level)
        return;
    ws_level = level;
    if (level) {
        ws_rise = avr->cycle;
        return;
    }
    avr_cycle_count_t high = avr->cycle - ws_rise;
    if (ws_nbits < WS_BITS) {
        if (high > WS_ONE_THRESHOLD)
            ws_bytes[ws_nbits / 8] |= (uint8_t)(0x80 >> (ws_nbits % 8));
    }
    ws_nbits++;
    avr_cycle_timer_register(avr, WS_LATCH_CYCLES, ws_latch, NULL);
}

static void pin_hook(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    const char *name = param;
    int level = value != 0;
    int *last = strcmp(name, "buzzer") == 0 ? &buz_level : &status_level;
    if (level == *last)
        return;
    *last = level;
    printf("BGREF PIN %llu %s %d\n", (unsigned long long)avr->cycle, name, level);
}

static void *stdin_thread(void *arg)
{
    (void)arg;
    char line[64];
    while (fgets(line, sizeof line, stdin)) {
        if (strncmp(line, "reset", 5) == 0)
            want_reset = 1;
        else if (strncmp(line, "quit", 4) == 0)
            break;
    }
    want_quit = 1;
    return NULL;
}

static void on_term(int sig)
{
    (void)sig;
    _exit(0);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s FIRMWARE.elf\n", argv[0]);
        return 2;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    signal(SIGTERM, on_term);
    signal(SIGINT, on_term);
    signal(SIGPIPE, SIG_IGN);

    elf_firmware_t fw;
    memset(&fw, 0, sizeof fw);
    if (elf_read_firmware(argv[1], &fw) != 0) {
        fprintf(stderr, "bgref-sim: cannot read %s\n", argv[1]);
        return 1;
    }
    strcpy(fw.mmcu, "atmega328p");
    fw.frequency = CPU_HZ;
    avr = avr_make_mcu_by_name(fw.mmcu);
    if (!avr) {
        fprintf(stderr, "bgref-sim: simavr does not know %s\n", fw.mmcu);
        return 1;
    }
    avr_init(avr);
    avr_load_firmware(avr, &fw);
    avr->log = 0;

    uart_pty_init(avr, &pty);
    uart_pty_connect(&pty, '0');
    printf("BGREF PTY %s\n", pty.pty.slavename);

    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ('D'), 6), ws_hook, NULL);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ('B'), 0), pin_hook, "buzzer");
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ('B'), 5), pin_hook, "status");

    pthread_t t;
    pthread_create(&t, NULL, stdin_thread, NULL);

    for (;;) {
        int state = avr_run(avr);
        if (state == cpu_Done || state == cpu_Crashed) {
            fprintf(stderr, "bgref-sim: the MCU stopped (state %d)\n", state);
            break;
        }
        if (want_quit)
            break;
        if (want_reset) {
            want_reset = 0;
            emit_frame(avr->cycle);
            avr_reset(avr);
            ws_level = 0;
            ws_nbits = 0;
            printf("BGREF RESET %llu\n", (unsigned long long)avr->cycle);
        }
    }
    fflush(stdout);
    _exit(0);                    /* uart_pty_stop() can hang: leave without it */
}
