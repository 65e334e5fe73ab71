package io.wheeltimer.jdbc;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * A listener that writes down, in order, each run it hears fired ({@code fired task}), retried
 * ({@code retried task: message}) or given up ({@code failed task: message}), from any thread.
 */
final class HeardListener implements DurableTimerListener {

    final Queue<String> heard = new ConcurrentLinkedQueue<>();

    @Override
    public void fired(String task) {
        heard.add("fired " + task);
    }

    @Override
    public void retried(String task, Throwable error) {
        heard.add("retried " + task + ": " + error.getMessage());
    }

    @Override
    public void failed(String task, Throwable error) {
        heard.add("failed " + task + ": " + error.getMessage());
    }
}
