/**
 * Whether a process of this machine is running, for a lock whose holder wrote its pid: a lock
 * of a process that is gone is a dead run's, and may be taken over. A process of another user
 * (EPERM) is running.
 */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
