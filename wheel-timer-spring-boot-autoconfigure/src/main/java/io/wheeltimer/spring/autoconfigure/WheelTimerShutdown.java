package io.wheeltimer.spring.autoconfigure;

import io.wheeltimer.HashedWheelTimer;
import io.wheeltimer.Ticker;
import io.wheeltimer.Timeout;
import io.wheeltimer.spring.annotated.WheelTimeoutBeanPostProcessor;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationListener;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.core.Ordered;

/**
 * Stops every {@link HashedWheelTimer} bean of the context, the application's own included, when
 * the context closes: timeouts due within {@code wheel-timer.shutdown.await-termination-period}
 * (the last tick of it included) still run first ({@link HashedWheelTimer#stopGracefully}), and so
 * do the {@code @WheelTimeout} calls they fire that wait for a thread of their executor; the number
 * of timeouts that never ran is logged at WARN, per timer.
 *
 * <p>It acts on the {@link ContextClosedEvent}, ahead of the executors' own listeners, so that
 * calls due within the period still find their executor and every bean alive; the timers are
 * stopped before any bean is destroyed, so no deferred call starts against a closed context. The
 * period is one for all timers, counted from the close: they are stopped one after the other, each
 * with what is left of it. The wait for calls that fired is bounded in real time too; a timer that
 * cannot be stopped gracefully is stopped at once.
 */
final class WheelTimerShutdown implements ApplicationListener<ContextClosedEvent>, Ordered {

    private static final Log logger = LogFactory.getLog(WheelTimerShutdown.class);

    /** Longest pause between two looks at the calls that fired and wait for a thread. */
    private static final long MAX_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    private final ApplicationContext context;
    private final Duration awaitTerminationPeriod;
    private final Ticker ticker;
    private final WheelTimeoutBeanPostProcessor calls;

    /**
     * @param calls the {@code @WheelTimeout} post-processor, whose calls that fired and wait for a
     *     thread of their executor are due within the period too; null if there is none
     */
    WheelTimerShutdown(
            ApplicationContext context,
            Duration awaitTerminationPeriod,
            Ticker ticker,
            WheelTimeoutBeanPostProcessor calls) {
        this.context = context;
        this.awaitTerminationPeriod = awaitTerminationPeriod;
        this.ticker = ticker;
        this.calls = calls;
    }

    @Override
    public int getOrder() {
        return 0; // before listeners without an order, such as Spring's executors that stop taking tasks
    }

    @Override
    public void onApplicationEvent(ContextClosedEvent event) {
        if (event.getApplicationContext() != context) {
            return; // a child context's close is not ours
        }
        long end = ticker.nanoTime() + awaitTerminationPeriod.toNanos();
        long giveUp = System.nanoTime() + awaitTerminationPeriod.toNanos() + TimeUnit.SECONDS.toNanos(1);
        createdTimers().forEach((name, timer) -> stop(name, timer, end, giveUp));
    }

    /** Only those created already: closing must not create a lazy timer just to stop it. */
    private Map<String, HashedWheelTimer> createdTimers() {
        Map<String, HashedWheelTimer> timers = new LinkedHashMap<>();
        ConfigurableListableBeanFactory beanFactory =
                context instanceof ConfigurableApplicationContext c ? c.getBeanFactory() : null;
        for (String name : context.getBeanNamesForType(HashedWheelTimer.class, false, false)) {
            if (beanFactory == null || beanFactory.containsSingleton(name)) {
                timers.put(name, context.getBean(name, HashedWheelTimer.class));
            }
        }
        return timers;
    }

    /**
     * Stops {@code timer} after the timeouts due by {@code end} (ticker time) have fired, and waits
     * for the calls they fired to start, until {@code giveUp} (System.nanoTime) at the latest.
     */
    private void stop(String name, HashedWheelTimer timer, long end, long giveUp) {
        Set<Timeout> neverRan;
        String waitCutShort = null;
        if (calls != null) {
            calls.keepCallsOpen(timer);
        }
        try {
            try {
                long grace = Math.max(end - ticker.nanoTime(), 0);
                neverRan = timer.stopGracefully(Duration.ofNanos(grace));
            } catch (RuntimeException e) {
                logger.warn("Could not stop wheel timer '" + name + "'", e);
                return;
            }
            if (calls != null) {
                waitCutShort = awaitCallsStarted(timer, giveUp);
            }
        } finally {
            if (calls != null) {
                calls.closeCalls(timer);
            }
        }
        if (waitCutShort != null) {
            logger.warn("Stopped wheel timer '" + name + "': " + waitCutShort);
        }
        if (!neverRan.isEmpty()) {
            logger.warn("Stopped wheel timer '" + name + "': " + neverRan.size()
                    + " pending timeouts never ran (none was due within the await-termination-period of "
                    + awaitTerminationPeriod + ")");
        }
    }

    /**
     * Waits while calls of {@code timer} that fired wait for a thread of their executor.
     *
     * @return null, or why the wait ended before they started
     */
    private String awaitCallsStarted(HashedWheelTimer timer, long giveUp) {
        try {
            while (calls.callsWaitingToStart(timer) > 0) {
                long left = giveUp - System.nanoTime();
                if (left <= 0) {
                    return calls.callsWaitingToStart(timer)
                            + " @WheelTimeout calls that fired had not started when the wait gave up";
                }
                TimeUnit.NANOSECONDS.sleep(Math.min(left, MAX_POLL_NANOS));
            }
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // stop now, without waiting any longer
            return "the wait for the @WheelTimeout calls that fired was interrupted";
        }
    }
}
