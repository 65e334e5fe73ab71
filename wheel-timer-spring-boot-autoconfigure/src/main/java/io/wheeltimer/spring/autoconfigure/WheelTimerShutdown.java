package io.wheeltimer.spring.autoconfigure;

import io.wheeltimer.HashedWheelTimer;
import io.wheeltimer.Ticker;
import io.wheeltimer.Timeout;
import io.wheeltimer.TimeoutInfo;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.ToIntFunction;
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
 * (the last tick of it included) still run first; the number of those that never ran is logged at
 * WARN, per timer.
 *
 * <p>It acts on the {@link ContextClosedEvent}, ahead of the executors' own listeners, so that
 * calls due within the period still find their executor and every bean alive; the timers are
 * stopped before any bean is destroyed, so no deferred call starts against a closed context. A
 * failure to look at a timer (a task holding its worker) ends the wait for that timer; nothing
 * prevents the stop.
 */
final class WheelTimerShutdown implements ApplicationListener<ContextClosedEvent>, Ordered {

    private static final Log logger = LogFactory.getLog(WheelTimerShutdown.class);

    /** Longest pause between two looks at a timer while waiting. */
    private static final long MAX_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    private final ApplicationContext context;
    private final Duration awaitTerminationPeriod;
    private final Ticker ticker;
    private final ToIntFunction<HashedWheelTimer> callsWaitingToStart;

    /**
     * @param callsWaitingToStart how many {@code @WheelTimeout} calls of a timer fired and wait for
     *     a thread of their executor: they too are due within the period
     */
    WheelTimerShutdown(
            ApplicationContext context,
            Duration awaitTerminationPeriod,
            Ticker ticker,
            ToIntFunction<HashedWheelTimer> callsWaitingToStart) {
        this.context = context;
        this.awaitTerminationPeriod = awaitTerminationPeriod;
        this.ticker = ticker;
        this.callsWaitingToStart = callsWaitingToStart;
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
        Map<String, HashedWheelTimer> timers = createdTimers();
        long end = ticker.nanoTime() + awaitTerminationPeriod.toNanos();
        Map<String, String> waitCutShort = new LinkedHashMap<>();
        for (Map.Entry<String, HashedWheelTimer> entry : timers.entrySet()) {
            String problem = awaitTimeoutsDueBefore(entry.getValue(), end);
            if (problem != null) {
                waitCutShort.put(entry.getKey(), problem);
            }
        }
        timers.forEach((name, timer) -> stop(name, timer, waitCutShort.get(name)));
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

    private void stop(String name, HashedWheelTimer timer, String waitCutShort) {
        Set<Timeout> neverRan;
        try {
            neverRan = timer.stop();
        } catch (RuntimeException e) {
            logger.warn("Could not stop wheel timer '" + name + "'", e);
            return;
        }
        if (neverRan.isEmpty()) {
            return;
        }
        String why = waitCutShort != null
                ? "the wait for those due within the await-termination-period of " + awaitTerminationPeriod
                        + " was cut short: " + waitCutShort
                : "none was due within the await-termination-period of " + awaitTerminationPeriod;
        logger.warn(
                "Stopped wheel timer '" + name + "': " + neverRan.size() + " pending timeouts never ran (" + why + ")");
    }

    /**
     * Whether the soonest pending timeout, {@code remaining} from {@code now}, falls within the
     * period or its last tick. A remaining time of 0 only says the deadline has passed, not when: up
     * to one tick after the end of the period, such a timeout fires at the boundary that ends the
     * period's last tick, with the others due in it.
     */
    private static boolean dueByTheLastTick(long remaining, long now, long end, long tick) {
        return now + remaining - end <= 0 || remaining == 0 && now - end < tick;
    }

    /**
     * Waits while the timer has a pending timeout whose deadline is at or before {@code end}, by the
     * ticker's time (it fires at the first tick boundary after its deadline, which may be after
     * {@code end}), or a fired call that waits for a thread of its executor. Bounded in real time
     * too, in case the worker or the executor does not keep up.
     *
     * @return null, or why the wait ended before those timeouts ran
     */
    private String awaitTimeoutsDueBefore(HashedWheelTimer timer, long end) {
        if (awaitTerminationPeriod.isZero() || timer.state() != HashedWheelTimer.State.STARTED) {
            return null;
        }
        long tick = timer.tickDuration().toNanos();
        long poll = Math.min(tick, MAX_POLL_NANOS);
        long giveUp = System.nanoTime() + awaitTerminationPeriod.toNanos() + 2 * tick + TimeUnit.SECONDS.toNanos(1);
        try {
            while (true) {
                // The time first, then the query: the worker measures `remaining` at or after `now`,
                // so `now + remaining` never puts a deadline later than it is. Read the other way
                // round, time that passed while the answer came back (a busy machine, or a test
                // moving a ManualTicker meanwhile) made timeouts due within the period look later
                // than its end, and the timer was stopped without them.
                long now = ticker.nanoTime();
                List<TimeoutInfo> soonest = timer.upcoming(1);
                boolean due = !soonest.isEmpty()
                        && dueByTheLastTick(soonest.get(0).remaining().toNanos(), now, end, tick);
                if (!due && callsWaitingToStart.applyAsInt(timer) == 0) {
                    return null;
                }
                if (System.nanoTime() - giveUp > 0) {
                    return "they had not run when the wait gave up";
                }
                TimeUnit.NANOSECONDS.sleep(poll);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // stop now, without waiting any longer
            return "interrupted";
        } catch (RuntimeException e) {
            return e.getMessage();
        }
    }
}
