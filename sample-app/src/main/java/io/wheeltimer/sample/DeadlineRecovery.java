package io.wheeltimer.sample;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.event.EventListener;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * Deadlines that no wheel holds: at startup every pending order's deadline is armed again, and every
 * {@code orders.recovery-interval} one query cancels the overdue orders of instances that are gone.
 */
@Component
class DeadlineRecovery {

    private static final Log logger = LogFactory.getLog(DeadlineRecovery.class);

    private final OrderStore store;
    private final PaymentDeadlines deadlines;
    private final Clock clock;
    private final Counter swept;

    DeadlineRecovery(OrderStore store, PaymentDeadlines deadlines, Clock clock, MeterRegistry meters) {
        this.store = store;
        this.deadlines = deadlines;
        this.clock = clock;
        this.swept = Counter.builder("orders.cancelled")
                .tag("by", "sweep")
                .description("Overdue orders this instance's sweep cancelled")
                .register(meters);
    }

    @EventListener(ApplicationReadyEvent.class)
    void armPendingDeadlines() {
        List<Order> pending = store.pending();
        var now = clock.instant();
        int refused = 0;
        for (Order order : pending) {
            try {
                deadlines.armAgain(order.id(), order.payBy(), now);
            } catch (RejectedExecutionException | IllegalStateException e) {
                refused++; // the timer is full or stopped: the sweep cancels these when they are overdue
            }
        }
        if (!pending.isEmpty()) {
            logger.info(armedAgain(pending.size() - refused, refused));
        }
    }

    /** What the startup log says: how many deadlines were armed again, and how many the timer refused. */
    static String armedAgain(int armed, int refused) {
        return "Armed the " + (armed == 1 ? "deadline" : "deadlines") + " of " + orders(armed, "pending") + " again"
                + (refused > 0 ? "; the timer refused " + refused + ", left to the sweep" : "");
    }

    /** What a sweep that cancelled something says. */
    static String swept(int cancelled) {
        return "Sweep cancelled " + orders(cancelled, "overdue") + " that no timer here held";
    }

    /** {@code 1 pending order}, {@code 2 pending orders}. */
    private static String orders(int count, String kind) {
        return count + " " + kind + (count == 1 ? " order" : " orders");
    }

    /**
     * Cancels every overdue pending order, whoever placed it. Cost: one
     * {@code UPDATE ... WHERE status = 'PENDING_PAYMENT' AND pay_by <= ?} on index
     * {@code orders_status_pay_by}, which reads only the overdue rows.
     */
    @Scheduled(
            fixedDelayString = "${orders.recovery-interval:10s}",
            initialDelayString = "${orders.recovery-interval:10s}")
    void sweep() {
        int cancelled = store.cancelOverdue(clock.instant());
        if (cancelled > 0) {
            swept.increment(cancelled);
            logger.info(swept(cancelled));
        }
    }
}
