package io.wheeltimer.jdbc;

import java.time.Instant;

/**
 * A durable timeout: the task that handles it, the key it is about, its deadline (a UTC instant,
 * truncated to milliseconds), the data stored with it, and the number of the run.
 *
 * @param task the task that handles it
 * @param key what it is about, for example an order id
 * @param deadline the deadline that was scheduled, on every run, retries included
 * @param data the text stored with it: a {@code String} as given, another object as the timer's
 *     {@link DurableDataCodec} wrote it; {@code null} when none
 * @param attempt the number of this run, 1 for the first; in {@link DurableTimer#find find} and
 *     {@link DurableTimer#pending pending} results the run that comes next; in a
 *     {@link FailedTimeout} the last run's number. {@link DurableTimer#scheduleAll scheduleAll}
 *     ignores it.
 */
public record DurableTimeout(String task, String key, Instant deadline, String data, int attempt) {

    /** A timeout without data, before its first run. */
    public DurableTimeout(String task, String key, Instant deadline) {
        this(task, key, deadline, null, 1);
    }
}
