// The workcell launcher for aarch64 Linux: the same program as
// launcher_x86_64.s (see there and launcher.ts for the script format), with
// the generic system call numbers. Assembled by `deno task launcher` into
// launcher_code.ts.
.text
.globl _start
_start:
    mov x0, #5                        // read(5, DATA, DATA_MAX = 8 MiB)
    ldr x1, =0x10000000
    ldr x2, =0x800000
    mov x8, #63
    svc #0
    cmp x0, #8
    b.lt bad_script
    mov x0, #5                        // close(5)
    mov x8, #57
    svc #0
    mov x0, #3                        // close(3)
    mov x8, #57
    svc #0
    mov x0, #4                        // fcntl(4, F_SETFD, FD_CLOEXEC)
    mov x1, #2
    mov x2, #1
    mov x8, #25
    svc #0
    mov x0, #6                        // fcntl(6, F_SETFD, FD_CLOEXEC)
    mov x1, #2
    mov x2, #1
    mov x8, #25
    svc #0
    ldr x19, =0x10000008              // first step
    ldr x20, =0x10000000
    ldr x20, [x20]                    // step count
next:
    cbz x20, done
    ldp x0, x1, [x19, #8]
    ldp x2, x3, [x19, #24]
    ldp x4, x5, [x19, #40]
    ldr x9, [x19, #64]
    tbz x9, #8, 1f
    ldr x0, [x0]
1:  tbz x9, #9, 1f
    ldr x1, [x1]
1:  tbz x9, #10, 1f
    ldr x2, [x2]
1:  tbz x9, #11, 1f
    ldr x3, [x3]
1:  tbz x9, #12, 1f
    ldr x4, [x4]
1:  tbz x9, #13, 1f
    ldr x5, [x5]
1:  ldr x8, [x19]
    svc #0
    ldr x10, [x19, #56]
    cbz x10, checked
    str x0, [x10]
checked:
    cmn x0, #4095                     // carry set: x0 is -4095..-1, an errno
    b.cc advance
    ldr x9, [x19, #64]
    tbnz x9, #1, skip
    tbnz x9, #0, advance
    neg w11, w0
    str w11, [x19, #76]
    mov x0, #4                        // write(4, &step.id, 8)
    add x1, x19, #72
    mov x2, #8
    mov x8, #64
    svc #0
    mov x0, #127                      // exit_group(127)
    mov x8, #94
    svc #0
skip:
    add x19, x19, #80
    sub x20, x20, #1
    cbz x20, done
advance:
    add x19, x19, #80
    sub x20, x20, #1
    b next
done:
    mov x0, #0                        // exit_group(0)
    mov x8, #94
    svc #0
bad_script:
    mov x0, #126                      // exit_group(126): no script on fd 5
    mov x8, #94
    svc #0
.ltorg
