package io.wheeltimer.sample;

import java.net.URI;
import java.util.Collection;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.ErrorResponseException;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/** {@code /orders}: place, pay and look at orders. Errors are RFC 9457 problem details. */
@RestController
@RequestMapping("/orders")
class OrderController {

    /** The body of {@code POST /orders}. */
    record NewOrder(String item) {
    }

    private final OrderService orders;

    OrderController(OrderService orders) {
        this.orders = orders;
    }

    @PostMapping
    ResponseEntity<Order> place(@RequestBody NewOrder request) {
        if (request.item() == null || request.item().isBlank()) {
            ErrorResponseException e = new ErrorResponseException(HttpStatus.BAD_REQUEST);
            e.setTitle("Missing item");
            e.setDetail("The order needs an \"item\", for example {\"item\": \"book\"}.");
            throw e;
        }
        Order order = orders.place(request.item().strip());
        return ResponseEntity.created(URI.create("/orders/" + order.id())).body(order);
    }

    @PostMapping("/{id}/payment")
    Order pay(@PathVariable String id) {
        return orders.pay(id);
    }

    @GetMapping("/{id}")
    Order get(@PathVariable String id) {
        return orders.get(id);
    }

    @GetMapping
    Collection<Order> all() {
        return orders.all();
    }
}
