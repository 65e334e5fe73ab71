package io.wheeltimer.jdbc;

import java.time.Instant;

/**
 * A timeout given up after too many runs that failed, kept in the table with its last error until it
 * is {@linkplain DurableTimer#retry retried}, {@linkplain DurableTimer#discard discarded}, or its key
 * scheduled again.
 *
 * @param timeout the timeout, with its scheduled deadline, its data, and the last run's number as
 *     {@code attempt}
 * @param failedAt when it was given up
 * @param lastError the error of the last run (its exception and causes), as stored
 */
public record FailedTimeout(DurableTimeout timeout, Instant failedAt, String lastError) {}
