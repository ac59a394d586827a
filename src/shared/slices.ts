/**
 * Long work on the extension host's thread in slices: `step(until)` works until the clock passes `until` and says
 * whether it is done; between slices the event loop runs everything else waiting (other extensions, VS Code's own
 * messages), so no slice holds the thread much longer than SLICE_MS. Pure (Node's timers only).
 */

/** How long one slice may run (ms): well under the 50 ms after which a task counts as a stall. */
export const SLICE_MS = 12;

/** Lets everything waiting in the event loop run first. */
export const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Runs `step` slice after slice until it returns true. The first slice waits for a turn of the event loop too: it
 * would otherwise run in the caller's task, after whatever that task did already (decoding a 16 MB file, the end of
 * a parse and what waited for it: together over 30 ms).
 */
export async function inSlices(step: (until: number) => boolean, sliceMs = SLICE_MS): Promise<void> {
  do await yieldToEventLoop();
  while (!step(performance.now() + sliceMs));
}

/**
 * How long background work waits after a list was handed to the workbench, which draws it meanwhile: reading a large
 * file or loading a library at once took the CPU that drawing needed (measured on two cores: the list showed 30–50
 * ms later).
 */
export const AFTER_LIST_MS = 150;
