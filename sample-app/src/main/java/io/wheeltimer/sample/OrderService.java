package io.wheeltimer.sample;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.wheeltimer.jdbc.DurableTimer;
import io.wheeltimer.jdbc.DurableTimerTask;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Service;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;
import org.springframework.web.ErrorResponseException;

/**
 * Places and pays orders; an order not paid within the payment window cancels itself. Its deadline is a
 * durable timeout (task {@value #PAYMENT_DEADLINE}, key = the order id) in the orders' database:
 * scheduled in the transaction that inserts the order, cancelled in the one that marks it paid, and
 * fired once, on one instance, also after a restart or a crash. It carries a {@link PaymentDeadline}
 * (the item and when it was due), stored with it as JSON and handed back to {@link #cancelIfUnpaid}.
 */
@Service
public class OrderService {

    private static final Log logger = LogFactory.getLog(OrderService.class);

    /** The durable timeouts' task: an order's payment deadline. */
    static final String PAYMENT_DEADLINE = "order-payment";

    private final OrderStore store;
    private final DurableTimer deadlines;
    private final PaymentProvider provider;
    private final OrdersProperties properties;
    private final Clock clock;
    private final TransactionTemplate transactions;
    private final Executor afterCharge;
    private final Counter cancelledAtDeadline;
    private final Counter cancelledAfterFailedPayment;

    OrderService(
            OrderStore store,
            DurableTimer deadlines,
            PaymentProvider provider,
            OrdersProperties properties,
            Clock clock,
            MeterRegistry meters,
            PlatformTransactionManager transactionManager,
            @Qualifier("applicationTaskExecutor") Executor afterCharge) {
        this.store = store;
        this.deadlines = deadlines;
        this.provider = provider;
        this.properties = properties;
        this.clock = clock;
        this.transactions = new TransactionTemplate(transactionManager);
        this.afterCharge = afterCharge;
        this.cancelledAtDeadline = Counter.builder("orders.cancelled")
                .tag("by", "deadline")
                .description("Orders this instance cancelled at their payment deadline")
                .register(meters);
        this.cancelledAfterFailedPayment = Counter.builder("orders.cancelled")
                .tag("by", "payment")
                .description("Orders cancelled when a payment that held them past payBy failed")
                .register(meters);
    }

    /**
     * Stores the order and schedules its payment deadline, in one transaction: both or neither.
     *
     * @param item what was ordered, already checked
     * @return the order placed
     */
    @Transactional
    public Order place(String item) {
        // Whole milliseconds, as durable deadlines are kept: the deadline is then payBy itself, not up to a
        // millisecond before it, so it never cancels an order whose window is still open.
        Instant now = clock.instant().truncatedTo(ChronoUnit.MILLIS);
        Order order = new Order(
                UUID.randomUUID().toString(),
                item,
                Order.Status.PENDING_PAYMENT,
                now,
                now.plus(properties.paymentWindow()));
        store.add(order);
        deadlines.schedule(PAYMENT_DEADLINE, order.id(), order.payBy(), new PaymentDeadline(item, order.payBy()));
        return order;
    }

    /**
     * Runs once per order whose payment deadline has passed, on one instance, in a transaction that also
     * removes the deadline: cancels the order unless it was paid. A payment that arrived in time and is
     * still being charged holds the order (a claim), and the order is not cancelled under it; the
     * deadline is then scheduled again for when that claim lapses. By then the payment has marked the
     * order paid (and cancelled the deadline), or let go of it (cancelling it, since {@code payBy} has
     * passed), or died with its instance: then this cancels it. So every order ends paid or cancelled.
     *
     * @param orderId the order
     * @param deadline what was scheduled with it (null for a deadline scheduled before the sample stored
     *     any)
     */
    @DurableTimerTask(PAYMENT_DEADLINE)
    public void cancelIfUnpaid(String orderId, PaymentDeadline deadline) {
        if (store.cancel(orderId)) {
            afterCommit(() -> {
                cancelledAtDeadline.increment();
                logger.info("Order " + orderId
                        + (deadline == null ? "" : " (" + deadline.item() + ", due " + deadline.payBy() + ")")
                        + " was not paid in time: cancelled");
            });
            return;
        }
        // Paid or cancelled already (nothing to do), or held by a payment under way: look again when its
        // claim lapses. One millisecond on, since durable deadlines are kept in whole milliseconds.
        store.claimLapses(orderId)
                .ifPresent(lapses -> deadlines.schedule(PAYMENT_DEADLINE, orderId, lapses.plusMillis(1), deadline));
    }

    /**
     * Charges a pending order and marks it paid. The payment counts from when it arrives: one that
     * arrives before {@code payBy} claims the order (or gets 409 if another payment holds it), and is
     * accepted even if the provider answers after {@code payBy}; its deadline leaves the claimed order
     * alone meanwhile. Marking the order paid and cancelling its deadline are one transaction. A charge
     * that fails or times out (504) lets go of the order: pending again while its window is open, else
     * cancelled. The order id is the charge's idempotency key, so a retry after a 504 is not charged
     * twice.
     *
     * @param id the order
     * @return the order, paid; fails with a 404, 409 or 504 {@link ErrorResponseException}
     */
    public CompletableFuture<Order> pay(String id) {
        Instant arrived = clock.instant().truncatedTo(ChronoUnit.MICROS); // before any wait for the database
        Order order = get(id);
        if (!payable(order, arrived)) {
            throw notPayable(order, arrived);
        }
        if (!store.claim(id, arrived)) {
            throw notPayable(get(id), arrived); // settled or claimed since we read it
        }
        CompletableFuture<String> charge;
        try {
            charge = provider.charge(id);
        } catch (RuntimeException e) {
            release(id, arrived, e);
            throw e;
        }
        // Not on the thread that completes the charge: a time limit completes it on the timer's thread,
        // which must not wait for the database.
        return charge.handleAsync(
                (reference, failure) -> {
                    if (failure != null) {
                        release(id, arrived, failure);
                        throw failure instanceof CompletionException c ? c : new CompletionException(failure);
                    }
                    if (!Boolean.TRUE.equals(transactions.execute(status -> markPaid(id, arrived)))) {
                        // Our claim lapsed (we were slower than orders.payment-timeout + 10 s) and the order was
                        // settled otherwise meanwhile: by a payment that took the same charge, or cancelled.
                        Order now = get(id);
                        if (now.status() == Order.Status.CANCELLED) {
                            logger.warn("Order " + id + " was cancelled while its payment " + reference
                                    + " was under way: that charge must be refunded");
                        }
                        throw notPayable(now, arrived);
                    }
                    return order.withStatus(Order.Status.PAID);
                },
                afterCharge);
    }

    /** In the caller's transaction: marks the order paid and cancels its deadline; false if the claim was lost. */
    private boolean markPaid(String id, Instant arrived) {
        if (!store.pay(id, arrived)) {
            return false;
        }
        deadlines.cancel(PAYMENT_DEADLINE, id);
        return true;
    }

    /** Lets go of an order whose payment failed; a failure to do so only adds to the first one. */
    private void release(String id, Instant arrived, Throwable failure) {
        try {
            if (Boolean.TRUE.equals(transactions.execute(status -> cancelIfReleasedLate(id, arrived)))) {
                cancelledAfterFailedPayment.increment();
                logger.info("Order " + id + " was not paid in time (its payment failed past payBy): cancelled");
            }
        } catch (RuntimeException e) {
            failure.addSuppressed(e); // the claim lapses by itself
        }
    }

    /** In the caller's transaction: lets go of the order; if that cancelled it, cancels its deadline too. */
    private boolean cancelIfReleasedLate(String id, Instant arrived) {
        if (!store.release(id, arrived, clock.instant())) {
            return false;
        }
        deadlines.cancel(PAYMENT_DEADLINE, id); // most likely already waiting for this claim to lapse
        return true;
    }

    /** Runs {@code action} once the current transaction has committed. */
    private static void afterCommit(Runnable action) {
        TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
            @Override
            public void afterCommit() {
                action.run();
            }
        });
    }

    /**
     * The order with this id.
     *
     * @param id the order
     * @return the order; fails with a 404 {@link ErrorResponseException}
     */
    public Order get(String id) {
        return store.find(id).orElseThrow(() -> notFound(id));
    }

    /**
     * One page of the orders, newest first.
     *
     * @param page which page, from 0
     * @param size orders per page, at least 1
     * @return the page and the number of orders there are
     */
    OrderPage page(int page, int size) {
        return new OrderPage(store.newestFirst((long) page * size, size), page, size, store.count());
    }

    private static boolean payable(Order order, Instant arrived) {
        return order.status() == Order.Status.PENDING_PAYMENT && arrived.isBefore(order.payBy());
    }

    /** Why a payment that arrived at {@code arrived} cannot pay the order as it now stands. */
    private static ErrorResponseException notPayable(Order order, Instant arrived) {
        if (order.status() != Order.Status.PENDING_PAYMENT) {
            return conflict(order.id() + " is " + order.status() + "; only an order in PENDING_PAYMENT can be paid.");
        }
        if (!arrived.isBefore(order.payBy())) {
            return conflict("payment window closed: order " + order.id() + " had to be paid by " + order.payBy()
                    + "; this payment arrived at " + arrived + ".");
        }
        ErrorResponseException e = new ErrorResponseException(HttpStatus.CONFLICT);
        e.setTitle("Payment already in progress");
        e.setDetail("Another payment of order " + order.id() + " is under way; GET /orders/" + order.id()
                + " shows how it ends.");
        return e;
    }

    private static ErrorResponseException notFound(String id) {
        ErrorResponseException e = new ErrorResponseException(HttpStatus.NOT_FOUND);
        e.setTitle("Order not found");
        e.setDetail("There is no order " + id + ".");
        return e;
    }

    private static ErrorResponseException conflict(String detail) {
        ErrorResponseException e = new ErrorResponseException(HttpStatus.CONFLICT);
        e.setTitle("Order is not awaiting payment");
        e.setDetail(detail.startsWith("payment") ? detail : "Order " + detail);
        return e;
    }
}
