package io.wheeltimer.jdbc;

import java.util.concurrent.Callable;

/**
 * Carries a context, such as a W3C {@code traceparent}, from the {@code schedule} of a timeout to each
 * of its runs, however much later and on whichever instance: the text {@link #capture} returns is
 * stored with the timeout and handed to {@link #run} for every run, retries included.
 *
 * <p>The default carries nothing: it stores nothing and runs each handler as it is.
 */
public interface DurableTimeoutContext {

    /** Stores nothing and runs each handler as it is. */
    DurableTimeoutContext NONE = new DurableTimeoutContext() {
        @Override
        public String capture() {
            return null;
        }

        @Override
        public void run(String stored, DurableTimeout timeout, Callable<Void> handler) throws Exception {
            handler.call();
        }
    };

    /**
     * On the thread that schedules: the text to store with the timeout, or null for none. Text longer
     * than 512 characters, or with U+0000 or an unpaired surrogate (text not every database stores),
     * is not stored, and the timeout is scheduled without it (logged once).
     */
    String capture();

    /**
     * On the thread of a run, inside its transaction: runs {@code handler} (exactly once) within the
     * context {@code stored} describes.
     *
     * @param stored what {@link #capture} returned when the timeout was scheduled; null when nothing
     *     was stored
     * @param timeout the timeout this run is for
     * @param handler the timeout's handler
     * @throws Exception what {@code handler} throws, which fails the run
     */
    void run(String stored, DurableTimeout timeout, Callable<Void> handler) throws Exception;
}
