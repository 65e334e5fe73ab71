package io.wheeltimer.sample;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.wheeltimer.Timeout;
import io.wheeltimer.Timer;
import io.wheeltimer.TimerTask;
import io.wheeltimer.spring.WheelTimeout;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.stereotype.Component;

/**
 * The payment deadline of each order, on the wheel timer. The deadline itself is in the database
 * ({@code pay_by}); the wheel only fires it on time, so losing the wheel (restart, crash) loses no
 * deadline: {@link DeadlineRecovery} arms them again and sweeps what no wheel holds.
 */
@Component
public class PaymentDeadlines {

    private static final Log logger = LogFactory.getLog(PaymentDeadlines.class);

    private final OrderStore store;
    private final Timer timer;
    /** The deadlines this instance armed, to cancel on payment; an optimisation, the database decides. */
    private final Map<String, Timeout> armed = new ConcurrentHashMap<>();

    private final Counter cancelled;

    PaymentDeadlines(OrderStore store, Timer timer, MeterRegistry meters) {
        this.store = store;
        this.timer = timer;
        this.cancelled = Counter.builder("orders.cancelled")
                .tag("by", "deadline")
                .description("Orders this instance cancelled at their deadline")
                .register(meters);
    }

    /**
     * Arms the deadline of an order found pending at startup; an overdue one fires on the next tick.
     *
     * @param orderId the order
     * @param payBy its deadline
     * @param now the current time
     */
    public void armAgain(String orderId, Instant payBy, Instant now) {
        long delay = Math.max(0, Duration.between(now, payBy).toNanos());
        track(orderId, timer.newTimeout(new ArmedAgain(orderId), delay, TimeUnit.NANOSECONDS));
    }

    /** The deadline of an order armed again at startup, described as the actuator endpoint lists it. */
    private final class ArmedAgain implements TimerTask {
        private final String orderId;

        ArmedAgain(String orderId) {
            this.orderId = orderId;
        }

        @Override
        public void run(Timeout timeout) {
            expire(orderId);
        }

        @Override
        public String toString() {
            return PaymentDeadlines.class.getName() + ".cancelIfUnpaid(String), armed again at startup";
        }
    }

    /**
     * Keeps the deadline of an order (as {@link #cancelIfUnpaid} returned it), to cancel it on payment.
     *
     * @param orderId the order
     * @param deadline its deadline on the wheel
     */
    public void track(String orderId, Timeout deadline) {
        armed.put(orderId, deadline);
        if (deadline.isExpired()) {
            armed.remove(orderId); // it ran before we got here (a very short window)
        }
    }

    /**
     * Cancels the deadline of a paid order, unless it is the one running.
     *
     * @param orderId the order
     */
    public void disarm(String orderId) {
        Timeout deadline = armed.remove(orderId);
        if (deadline != null) {
            deadline.cancel();
        }
    }

    /**
     * Runs when an order's payment window has passed. The caller gets the {@link Timeout} at once, to
     * cancel it when the order is paid.
     *
     * @param orderId the order
     * @return {@code null}; the caller gets the timeout instead
     */
    @WheelTimeout(delay = "${orders.payment-window:30s}")
    public Timeout cancelIfUnpaid(String orderId) {
        expire(orderId);
        return null;
    }

    private void expire(String orderId) {
        armed.remove(orderId);
        if (store.cancel(orderId)) {
            cancelled.increment();
            logger.info("Order " + orderId + " was not paid in time: cancelled");
        }
    }
}
