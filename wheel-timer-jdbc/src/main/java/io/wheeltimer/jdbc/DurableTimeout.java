package io.wheeltimer.jdbc;

import java.time.Instant;

/**
 * A durable timeout: the task that handles it, the key it is about, and its deadline (a UTC instant,
 * truncated to milliseconds).
 */
public record DurableTimeout(String task, String key, Instant deadline) {}
