package io.wheeltimer.jdbc;

import java.time.Instant;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/** A handler that records every run (the timeout, the thread, when it started), then does {@code behaviour}. */
final class RecordingHandler implements DurableTimeoutHandler {

    record Run(DurableTimeout timeout, String thread, Instant started) {}

    private final Queue<Run> runs = new ConcurrentLinkedQueue<>();
    private final DurableTimeoutHandler behaviour;

    RecordingHandler() {
        this(timeout -> {});
    }

    RecordingHandler(DurableTimeoutHandler behaviour) {
        this.behaviour = behaviour;
    }

    @Override
    public void handle(DurableTimeout timeout) throws Exception {
        runs.add(new Run(timeout, Thread.currentThread().getName(), Instant.now()));
        behaviour.handle(timeout);
    }

    List<Run> runs() {
        return List.copyOf(runs);
    }

    List<Run> runs(String key) {
        return runs.stream().filter(r -> r.timeout().key().equals(key)).toList();
    }

    int count() {
        return runs.size();
    }

    int count(String key) {
        return runs(key).size();
    }
}
