# The workcell launcher for x86_64 Linux: runs a script of system calls
# read from fd 5, then (as its last step) execve's the command. Assembled by
# `deno task launcher` into launcher_code.ts; see launcher.ts for the format.
#
# Script at DATA (0x10000000): u64 count, then `count` steps of 80 bytes:
#   +0 nr  +8..+48 six arguments  +56 store address (0: none)
#   +64 flags: bit 0 failure tolerated, bit 1 on failure skip the next step,
#       bits 8-13 argument i is the address of its value (read at run time)
#   +72 u32 step id  +76 u32 errno (written on failure)
# A failing step that is not tolerated writes its id and errno (8 bytes) to
# fd 4 and exits with 127; a script that ends without execve exits with 0.
# Before the first step the launcher closes its own image (fd 3) and its
# script (fd 5), and marks fd 4 and a program passed as fd 6 close-on-exec,
# so the command inherits none of them.
.intel_syntax noprefix
.globl _start
.text
_start:
    xor eax, eax                      # read(5, DATA, DATA_MAX = 8 MiB)
    mov edi, 5
    mov esi, 0x10000000
    mov edx, 0x800000
    syscall
    cmp rax, 8
    jl bad_script
    mov eax, 3                        # close(5)
    mov edi, 5
    syscall
    mov eax, 3                        # close(3)
    mov edi, 3
    syscall
    mov eax, 72                       # fcntl(4, F_SETFD, FD_CLOEXEC)
    mov edi, 4
    mov esi, 2
    mov edx, 1
    syscall
    mov eax, 72                       # fcntl(6, F_SETFD, FD_CLOEXEC)
    mov edi, 6
    mov esi, 2
    mov edx, 1
    syscall
    mov ebx, 0x10000008               # first step
    mov r12, qword ptr [0x10000000]   # step count
next:
    test r12, r12
    jz done
    mov rdi, [rbx+8]
    mov rsi, [rbx+16]
    mov rdx, [rbx+24]
    mov r10, [rbx+32]
    mov r8,  [rbx+40]
    mov r9,  [rbx+48]
    mov rcx, [rbx+64]
    bt ecx, 8
    jnc 1f
    mov rdi, [rdi]
1:  bt ecx, 9
    jnc 1f
    mov rsi, [rsi]
1:  bt ecx, 10
    jnc 1f
    mov rdx, [rdx]
1:  bt ecx, 11
    jnc 1f
    mov r10, [r10]
1:  bt ecx, 12
    jnc 1f
    mov r8, [r8]
1:  bt ecx, 13
    jnc 1f
    mov r9, [r9]
1:  mov rax, [rbx]
    syscall
    mov rcx, [rbx+56]
    test rcx, rcx
    jz checked
    mov [rcx], rax
checked:
    cmp rax, -4095
    jb advance
    mov rcx, [rbx+64]
    test cl, 2
    jnz skip
    test cl, 1
    jnz advance
    neg eax
    mov [rbx+76], eax
    mov eax, 1                        # write(4, &step.id, 8)
    mov edi, 4
    lea rsi, [rbx+72]
    mov edx, 8
    syscall
    mov eax, 231                      # exit_group(127)
    mov edi, 127
    syscall
skip:
    add rbx, 80
    dec r12
    jz done
advance:
    add rbx, 80
    dec r12
    jmp next
done:
    mov eax, 231                      # exit_group(0)
    xor edi, edi
    syscall
bad_script:
    mov eax, 231                      # exit_group(126): no script on fd 5
    mov edi, 126
    syscall
