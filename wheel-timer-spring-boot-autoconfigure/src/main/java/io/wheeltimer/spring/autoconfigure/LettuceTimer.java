package io.wheeltimer.spring.autoconfigure;

import io.netty.util.Timeout;
import io.netty.util.Timer;
import io.netty.util.TimerTask;
import io.wheeltimer.netty.NettyTimer;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The Netty timer Lettuce gets: the wheel's {@link NettyTimer} view, with one difference once the
 * wheel has stopped. The starter stops its timers as soon as the context starts closing, while
 * Lettuce's connections close only later, at the lifecycle stop that also lets a web server finish
 * its requests gracefully. A command sent in between is sent without a client-side timeout (it is
 * still failed when its connection closes), instead of failing because the wheel is stopped; the
 * first such command is logged at WARN, since a wheel stopped while the application goes on (through
 * the actuator, say) leaves Lettuce's commands without timeouts.
 */
final class LettuceTimer implements Timer {

    private static final Log logger = LogFactory.getLog(LettuceTimer.class);

    private final io.wheeltimer.Timer wheel;
    private final Timer view;
    private final AtomicBoolean warned = new AtomicBoolean();

    LettuceTimer(io.wheeltimer.Timer wheel) {
        this.wheel = wheel;
        this.view = NettyTimer.of(wheel);
    }

    @Override
    public Timeout newTimeout(TimerTask task, long delay, TimeUnit unit) {
        try {
            return view.newTimeout(task, delay, unit);
        } catch (IllegalStateException stopped) {
            if (warned.compareAndSet(false, true)) {
                logger.warn("The wheel timer " + wheel + " is stopped: Lettuce's commands go without a"
                        + " client-side timeout from now on (this is expected while the context closes)");
            }
            return new Unarmed(this, task);
        }
    }

    /** Cancels the timeouts armed through this timer that never ran; the wheel keeps running. */
    @Override
    public Set<Timeout> stop() {
        return view.stop();
    }

    @Override
    public String toString() {
        return "LettuceTimer(" + view + ")";
    }

    /** A timeout that was never armed: it never fires, and there is nothing to cancel. */
    private record Unarmed(Timer timer, TimerTask task) implements Timeout {

        @Override
        public boolean isExpired() {
            return false;
        }

        @Override
        public boolean isCancelled() {
            return false;
        }

        @Override
        public boolean cancel() {
            return false;
        }
    }
}
