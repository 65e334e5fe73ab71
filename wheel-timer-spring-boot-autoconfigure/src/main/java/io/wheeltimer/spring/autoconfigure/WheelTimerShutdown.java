package io.wheeltimer.spring.autoconfigure;

import io.wheeltimer.HashedWheelTimer;
import io.wheeltimer.TimeoutInfo;
import io.wheeltimer.Timeout;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.DisposableBean;

/**
 * Stops the auto-configured timer when the context closes: timeouts due within the
 * {@code wheel-timer.shutdown.await-termination-period} still run first; the number of those that
 * never ran is logged at WARN. Destroyed before the timer bean, which it depends on.
 */
final class WheelTimerShutdown implements DisposableBean {

    private static final Log logger = LogFactory.getLog(WheelTimerShutdown.class);

    private final HashedWheelTimer timer;
    private final Duration awaitTerminationPeriod;

    WheelTimerShutdown(HashedWheelTimer timer, Duration awaitTerminationPeriod) {
        this.timer = timer;
        this.awaitTerminationPeriod = awaitTerminationPeriod;
    }

    @Override
    public void destroy() {
        try {
            awaitTimeoutsDueWithinThePeriod();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // stop now, without waiting any longer
        }
        Set<Timeout> neverRan = timer.stop();
        if (!neverRan.isEmpty()) {
            logger.warn("Stopped wheel timer '" + timer.name() + "': " + neverRan.size()
                    + " pending timeouts never ran (none was due within the await-termination-period of "
                    + awaitTerminationPeriod + ")");
        }
    }

    /** Waits while the soonest pending timeout is due before the period ends. */
    private void awaitTimeoutsDueWithinThePeriod() throws InterruptedException {
        long end = System.nanoTime() + awaitTerminationPeriod.toNanos();
        long tick = timer.tickDuration().toNanos();
        for (long left = end - System.nanoTime(); left > 0; left = end - System.nanoTime()) {
            List<TimeoutInfo> soonest = timer.upcoming(1);
            if (soonest.isEmpty() || soonest.get(0).remaining().toNanos() > left) {
                return;
            }
            // It fires at the first tick boundary after its deadline.
            TimeUnit.NANOSECONDS.sleep(Math.min(soonest.get(0).remaining().toNanos() + tick, left));
        }
    }
}
