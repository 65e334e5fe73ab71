package io.wheeltimer.spring.autoconfigure.durable;

import io.wheeltimer.jdbc.JdbcDurableTimer;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationListener;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.core.Ordered;

/**
 * Starts the durable timer once the context is refreshed (the last of the lifecycle beans, so the
 * handlers' beans are all there) and stops it when the context closes: it releases what it holds so
 * that the other instances claim it on their next poll, instead of after the lease.
 *
 * <p>The stop happens on the {@link ContextClosedEvent}, ahead of the listener that stops the wheel
 * timers (order 0) and of Spring's executors, which stop taking tasks on that event: so the wheel
 * still runs while the durable timer disarms its timeouts, and a handler still running finds its
 * executor and beans alive. Stopping as a lifecycle bean would come too late, after the wheel timers
 * have stopped. {@link #stop()} (a {@code context.stop()}) stops it too.
 */
final class DurableTimerLifecycle implements SmartLifecycle, ApplicationListener<ContextClosedEvent>, Ordered {

    /** Before the wheel timers' shutdown listener, at 0. */
    static final int ORDER = -100;

    private static final Log logger = LogFactory.getLog(DurableTimerLifecycle.class);

    private final ApplicationContext context;
    private final JdbcDurableTimer timer;
    private final AutoCloseable onClose;

    /**
     * @param onClose closed when the context closes, after the timer stopped: the handler executor
     *     of its own, if any
     */
    DurableTimerLifecycle(ApplicationContext context, JdbcDurableTimer timer, AutoCloseable onClose) {
        this.context = context;
        this.timer = timer;
        this.onClose = onClose;
    }

    @Override
    public void start() {
        if (!timer.isRunning()) {
            timer.start();
        }
    }

    @Override
    public void stop() {
        if (timer.isRunning()) {
            timer.stop();
        }
    }

    @Override
    public boolean isRunning() {
        return timer.isRunning();
    }

    /** Last to start, first to stop among the lifecycle beans. */
    @Override
    public int getPhase() {
        return SmartLifecycle.DEFAULT_PHASE;
    }

    @Override
    public void onApplicationEvent(ContextClosedEvent event) {
        if (event.getApplicationContext() != context) {
            return; // a child context's close is not ours
        }
        try {
            timer.stop();
        } finally {
            try {
                onClose.close();
            } catch (Exception e) {
                logger.warn("Could not close the durable timer's handler executor", e);
            }
        }
    }

    @Override
    public int getOrder() {
        return ORDER;
    }
}
