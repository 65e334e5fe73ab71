package io.wheeltimer.sample;

import java.net.URI;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Pattern;
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

    /** Control, format, private-use, unassigned characters and lone surrogates: not printable text. */
    private static final Pattern NOT_PRINTABLE = Pattern.compile("\\p{C}");

    private final OrderService orders;
    private final OrdersProperties properties;

    OrderController(OrderService orders, OrdersProperties properties) {
        this.orders = orders;
        this.properties = properties;
    }

    // A Map, not a record: Jackson would coerce {"item": 42} into the string "42".
    @PostMapping
    ResponseEntity<Order> place(@RequestBody Map<String, Object> request) {
        Order order = orders.place(item(request.get("item")));
        return ResponseEntity.created(URI.create("/orders/" + order.id())).body(order);
    }

    @PostMapping("/{id}/payment")
    CompletableFuture<Order> pay(@PathVariable String id) {
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

    private String item(Object value) {
        if (!(value instanceof String text) || text.isBlank()) {
            throw badItem(
                    "Missing item",
                    "The order needs an \"item\" that is a non-blank JSON string, for example "
                            + "{\"item\": \"book\"}; got "
                            + (value == null
                                    ? "none"
                                    : value.getClass()
                                            .getSimpleName()
                                            .replace("LinkedHashMap", "an object")
                                            .replace("ArrayList", "an array"))
                            + ".");
        }
        String item = text.strip();
        int length = item.codePointCount(0, item.length());
        if (length > properties.maxItemLength()) {
            throw badItem(
                    "Item too long",
                    "The \"item\" has " + length + " characters; at most " + properties.maxItemLength()
                            + " are allowed.");
        }
        var unprintable = NOT_PRINTABLE.matcher(item);
        if (unprintable.find()) {
            throw badItem(
                    "Item not printable",
                    "The \"item\" contains U+" + String.format("%04X", item.codePointAt(unprintable.start()))
                            + " at index " + unprintable.start()
                            + "; only printable text is allowed.");
        }
        return item;
    }

    private static ErrorResponseException badItem(String title, String detail) {
        ErrorResponseException e = new ErrorResponseException(HttpStatus.BAD_REQUEST);
        e.setTitle(title);
        e.setDetail(detail);
        return e;
    }
}
