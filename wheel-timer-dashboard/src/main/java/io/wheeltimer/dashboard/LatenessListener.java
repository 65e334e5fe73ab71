package io.wheeltimer.dashboard;

import io.wheeltimer.jdbc.DurableTimeout;
import io.wheeltimer.jdbc.DurableTimerListener;
import java.time.Duration;

/** Hands each durable timeout's lateness to the dashboard's {@link LatenessWindow}. */
final class LatenessListener implements DurableTimerListener {

    private final LatenessWindow window;

    LatenessListener(LatenessWindow window) {
        this.window = window;
    }

    @Override
    public void started(DurableTimeout timeout, Duration lateness) {
        window.record(timeout.task(), lateness);
    }
}
