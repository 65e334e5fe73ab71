package io.wheeltimer.netty;

import static java.util.concurrent.TimeUnit.NANOSECONDS;

import io.netty.util.TimerTask;
import io.wheeltimer.internal.Notice;
import java.util.concurrent.RejectedExecutionException;

/**
 * Tells a Netty task that its timeout was cancelled, when and where Netty's {@code
 * HashedWheelTimer} tells it: once, after the winning {@code cancel()} returned, on the timer's own
 * thread, so that {@link TimerTask#cancelled} never runs inside the caller's {@code cancel()}. Here
 * the timer's thread is where the wheel runs its tasks, so the notice is a wheel task of its own,
 * due at once. It is the view's, not the user's: a {@code HashedWheelTimer} does not count it among
 * its timeouts ({@link Notice}), so a cancel changes the shared timer's counts as the cancel of any
 * timeout does, and nothing more. If the wheel no longer takes timeouts (it is stopping, or, another
 * {@link io.wheeltimer.Timer}, at its maximum of pending timeouts), the task is told on the
 * cancelling thread instead: late or elsewhere, but never not at all.
 */
final class CancelledNotice extends Notice {

    private static final System.Logger LOG = System.getLogger(NettyTimer.class.getName());

    /**
     * Whether a task class overrides {@code cancelled}. Most Netty tasks are lambdas that do not,
     * and Lettuce cancels a command's timeout on every reply: for those a cancel costs no notice.
     */
    private static final ClassValue<Boolean> LISTENS = new ClassValue<>() {
        @Override
        protected Boolean computeValue(Class<?> type) {
            try {
                return type.getMethod("cancelled", io.netty.util.Timeout.class).getDeclaringClass() != TimerTask.class;
            } catch (NoSuchMethodException | RuntimeException e) {
                return true; // cannot tell: tell it, an unneeded notice costs only a timeout
            }
        }
    };

    private final NettyTimeout timeout;

    private CancelledNotice(NettyTimeout timeout) {
        this.timeout = timeout;
    }

    /** After {@code timeout}'s cancel won: tells its task on {@code timer}'s thread, unless it does not listen. */
    static void send(io.wheeltimer.Timer timer, NettyTimeout timeout) {
        if (!LISTENS.get(timeout.task().getClass())) {
            return;
        }
        CancelledNotice notice = new CancelledNotice(timeout);
        try {
            timer.newTimeout(notice, 0, NANOSECONDS);
        } catch (IllegalStateException | RejectedExecutionException refused) {
            notice.tell();
        }
    }

    @Override
    public void run(io.wheeltimer.Timeout ignored) {
        tell();
    }

    /**
     * The wheel stopped before the notice ran: told now, on the wheel's thread, as Netty's worker
     * tells the cancels that came before its stop.
     */
    @Override
    public void cancelled(io.wheeltimer.Timeout ignored) {
        tell();
    }

    /** As Netty's timer: an exception from {@code cancelled} is logged and goes no further. */
    private void tell() {
        TimerTask task = timeout.task();
        try {
            task.cancelled(timeout);
        } catch (Throwable t) {
            LOG.log(System.Logger.Level.WARNING, "An exception was thrown by TimerTask.cancelled() of " + task, t);
        }
    }

    /** What the wheel's log lines show for the notice. */
    @Override
    public String toString() {
        return "cancelled() of " + timeout.task();
    }
}
