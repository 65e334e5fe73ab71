package io.wheeltimer.sample;

import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.web.ErrorResponseException;

/** Places and pays orders; an order not paid within the payment window cancels itself. */
@Service
public class OrderService {

    /** Seconds a client should wait before placing an order again when the timer refuses one. */
    static final String RETRY_AFTER_SECONDS = "1";

    private final OrderStore store;
    private final PaymentDeadlines deadlines;
    private final PaymentProvider provider;
    private final OrdersProperties properties;
    private final Clock clock;

    OrderService(
            OrderStore store,
            PaymentDeadlines deadlines,
            PaymentProvider provider,
            OrdersProperties properties,
            Clock clock) {
        this.store = store;
        this.deadlines = deadlines;
        this.provider = provider;
        this.properties = properties;
        this.clock = clock;
    }

    /**
     * Stores the order and arms its deadline, both or neither: when the timer refuses the deadline
     * (pending limit reached, or stopped), the insert is rolled back and the client gets 503.
     *
     * @param item what was ordered, already checked
     * @return the order placed
     */
    @Transactional
    public Order place(String item) {
        Instant now = clock.instant().truncatedTo(ChronoUnit.MICROS); // what the database keeps
        Order order = new Order(
                UUID.randomUUID().toString(),
                item,
                Order.Status.PENDING_PAYMENT,
                now,
                now.plus(properties.paymentWindow()));
        store.add(order);
        try {
            deadlines.track(order.id(), deadlines.cancelIfUnpaid(order.id()));
        } catch (RejectedExecutionException | IllegalStateException e) {
            throw unavailable(e);
        }
        return order;
    }

    /**
     * Charges a pending order whose window is open and marks it paid, if the window is still open
     * and no one else settled it meanwhile. A charge that times out answers 504 and leaves the order
     * pending.
     *
     * @param id the order
     * @return the order, paid; fails with a 404, 409 or 504 {@link ErrorResponseException}
     */
    public CompletableFuture<Order> pay(String id) {
        Order order = get(id);
        checkPayable(order);
        return provider.charge(id).thenApply(charge -> {
            if (!store.pay(id, clock.instant())) {
                checkPayable(get(id)); // someone else settled it, or its window closed during the charge
                throw new IllegalStateException("Order " + id + " is pending and payable but was not paid");
            }
            deadlines.disarm(id);
            return order.withStatus(Order.Status.PAID);
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

    private void checkPayable(Order order) {
        if (order.status() != Order.Status.PENDING_PAYMENT) {
            throw conflict(order.id() + " is " + order.status() + "; only an order in PENDING_PAYMENT can be paid.");
        }
        if (!clock.instant().isBefore(order.payBy())) {
            throw conflict("payment window closed: order " + order.id() + " had to be paid by " + order.payBy() + ".");
        }
    }

    private static ErrorResponseException unavailable(RuntimeException cause) {
        ErrorResponseException e = new ErrorResponseException(HttpStatus.SERVICE_UNAVAILABLE, cause);
        e.setTitle("Cannot take orders right now");
        e.setDetail("The order was not placed: its payment deadline could not be scheduled (" + cause.getMessage()
                + "). Try again later.");
        e.getHeaders().set(HttpHeaders.RETRY_AFTER, RETRY_AFTER_SECONDS);
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
