package io.wheeltimer;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * What the timer tests share: the timers a test created, stopped after it (register with
 * {@code @RegisterExtension final TestTimers timers = new TestTimers();} and wrap each new timer in
 * {@link #track}), and daemon threads for the helper threads of a test.
 */
final class TestTimers implements AfterEachCallback {

    private final List<HashedWheelTimer> timers = new CopyOnWriteArrayList<>();
    private final boolean stopMayFail;

    /** A stop() that throws after the test fails the test. */
    TestTimers() {
        this(false);
    }

    private TestTimers(boolean stopMayFail) {
        this.stopMayFail = stopMayFail;
    }

    /** For tests that may break a timer on purpose: a stop() that throws after the test is ignored. */
    static TestTimers stopMayFail() {
        return new TestTimers(true);
    }

    /** Returns {@code timer}, which is stopped after the test. */
    HashedWheelTimer track(HashedWheelTimer timer) {
        timers.add(timer);
        return timer;
    }

    @Override
    public void afterEach(ExtensionContext context) {
        RuntimeException failure = null;
        for (HashedWheelTimer timer : timers) {
            try {
                timer.stop();
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        timers.clear();
        if (failure != null && !stopMayFail) {
            throw failure;
        }
    }

    /** Daemon threads named {@code prefix-1}, {@code prefix-2}...: a hung test does not keep the JVM alive. */
    static ThreadFactory daemonThreads(String prefix) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, prefix + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    /** Stops {@code timer} unless it is null or already shut down. */
    static void stopQuietly(HashedWheelTimer timer) {
        if (timer != null && timer.state() != HashedWheelTimer.State.SHUTDOWN) {
            timer.stop();
        }
    }
}
