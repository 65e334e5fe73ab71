package io.wheeltimer.jdbc.internal.table;

import io.wheeltimer.jdbc.DurableTimeout;
import io.wheeltimer.jdbc.FailedTimeout;
import java.time.Instant;

/**
 * A row read with everything an application or an operator sees: {@code dueAt} null once given up,
 * {@code failedAt} and {@code lastError} null while pending, {@code holder} null when nobody holds it.
 * Times are epoch milliseconds.
 */
public record WholeRow(
        String task,
        String key,
        long deadline,
        Long dueAt,
        String holder,
        int attempts,
        String data,
        Long failedAt,
        String lastError) {

    /** Whether it is pending (else it was given up). */
    public boolean isPending() {
        return failedAt == null;
    }

    /** The timeout: its {@code attempt} the run that comes next while pending, the last run once given up. */
    public DurableTimeout timeout() {
        return new DurableTimeout(
                task, key, Instant.ofEpochMilli(deadline), data, isPending() ? attempts + 1 : Math.max(1, attempts));
    }

    /** As a given-up timeout: the timeout, when and why. */
    FailedTimeout failed() {
        return new FailedTimeout(timeout(), Instant.ofEpochMilli(failedAt), lastError);
    }
}
