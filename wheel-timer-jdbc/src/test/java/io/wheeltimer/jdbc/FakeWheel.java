package io.wheeltimer.jdbc;

import io.wheeltimer.Timeout;
import io.wheeltimer.Timer;
import io.wheeltimer.TimerTask;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/** A wheel that records what is armed on it and runs a task only when a test fires it. */
final class FakeWheel implements Timer {
    final List<FakeTimeout> armed = new CopyOnWriteArrayList<>();
    boolean refusing;

    @Override
    public Timeout newTimeout(TimerTask task, long delay, TimeUnit unit) {
        if (refusing) {
            throw new RejectedExecutionException("full");
        }
        FakeTimeout timeout = new FakeTimeout(this, task, unit.toMillis(delay));
        armed.add(timeout);
        return timeout;
    }

    @Override
    public Set<Timeout> stop() {
        return Set.of();
    }

    static final class FakeTimeout implements Timeout {
        private final Timer timer;
        private final TimerTask task;
        final long delayMillis;
        boolean cancelled;

        FakeTimeout(Timer timer, TimerTask task, long delayMillis) {
            this.timer = timer;
            this.task = task;
            this.delayMillis = delayMillis;
        }

        void fire() {
            try {
                task.run(this);
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        }

        @Override
        public Timer timer() {
            return timer;
        }

        @Override
        public TimerTask task() {
            return task;
        }

        @Override
        public boolean isExpired() {
            return false;
        }

        @Override
        public boolean isCancelled() {
            return cancelled;
        }

        @Override
        public boolean cancel() {
            cancelled = true;
            return true;
        }
    }
}
