package io.wheeltimer.sample;

import java.time.Clock;
import java.time.Instant;
import java.util.Collection;
import java.util.UUID;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Service;
import org.springframework.web.ErrorResponseException;

/** Places and pays orders; an order not paid within the payment window cancels itself. */
@Service
public class OrderService {

    private final OrderStore store;
    private final PaymentDeadlines deadlines;
    private final OrdersProperties properties;
    private final Clock clock = Clock.systemUTC();

    OrderService(OrderStore store, PaymentDeadlines deadlines, OrdersProperties properties) {
        this.store = store;
        this.deadlines = deadlines;
        this.properties = properties;
    }

    Order place(String item) {
        Instant now = clock.instant();
        Order order = new Order(UUID.randomUUID().toString(), item, Order.Status.PENDING_PAYMENT, now,
                now.plus(properties.paymentWindow()));
        store.add(order);
        store.rememberDeadline(order.id(), deadlines.cancelIfUnpaid(order.id()));
        return order;
    }

    Order pay(String id) {
        Order before = store.settle(id, Order.Status.PAID).orElseThrow(() -> notFound(id));
        if (before.status() != Order.Status.PENDING_PAYMENT) {
            throw conflict(before);
        }
        store.forgetDeadline(id);
        return before.withStatus(Order.Status.PAID);
    }

    Order get(String id) {
        return store.find(id).orElseThrow(() -> notFound(id));
    }

    Collection<Order> all() {
        return store.all();
    }

    private static ErrorResponseException notFound(String id) {
        ErrorResponseException e = new ErrorResponseException(HttpStatus.NOT_FOUND);
        e.setTitle("Order not found");
        e.setDetail("There is no order " + id + ".");
        return e;
    }

    private static ErrorResponseException conflict(Order order) {
        ErrorResponseException e = new ErrorResponseException(HttpStatus.CONFLICT);
        e.setTitle("Order is not awaiting payment");
        e.setDetail("Order " + order.id() + " is " + order.status()
                + "; only an order in PENDING_PAYMENT can be paid.");
        return e;
    }
}
