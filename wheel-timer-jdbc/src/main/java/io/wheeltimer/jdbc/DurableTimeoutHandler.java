package io.wheeltimer.jdbc;

/**
 * Runs the durable timeouts of one task. Called inside the transaction that removes the timeout's
 * row: throwing rolls both back and the timeout is retried later.
 */
@FunctionalInterface
public interface DurableTimeoutHandler {

    void handle(DurableTimeout timeout) throws Exception;
}
