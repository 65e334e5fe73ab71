package io.wheeltimer.sample;

import io.wheeltimer.Timeout;
import io.wheeltimer.spring.WheelTimeout;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.stereotype.Component;

/** The payment deadline of each order, on the wheel timer. */
@Component
public class PaymentDeadlines {

    private static final Log logger = LogFactory.getLog(PaymentDeadlines.class);

    private final OrderStore store;

    PaymentDeadlines(OrderStore store) {
        this.store = store;
    }

    /**
     * Called when an order is placed; runs when its payment window has passed. The caller gets the
     * {@link Timeout} at once, to cancel it when the order is paid.
     */
    @WheelTimeout(delay = "${orders.payment-window:30s}")
    public Timeout cancelIfUnpaid(String orderId) {
        store.forgetDeadline(orderId);
        store.settle(orderId, Order.Status.CANCELLED)
                .filter(order -> order.status() == Order.Status.PENDING_PAYMENT)
                .ifPresent(order -> logger.info("Order " + orderId + " was not paid in time: cancelled"));
        return null;
    }
}
