package io.wheeltimer.sample;

import java.net.URI;
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
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** {@code /orders}: place, pay and look at orders. Errors are RFC 9457 problem details. */
@RestController
@RequestMapping("/orders")
class OrderController {

    /**
     * Never text: control characters (C0, DEL, C1) and surrogates not in a pair. Format characters are
     * text (the zero-width joiner in emoji sequences, the non-joiner in Persian, the soft hyphen), and
     * so are code points this JDK does not know yet (newer emoji).
     */
    private static final Pattern NOT_TEXT = Pattern.compile("[\\p{Cc}\\p{Cs}]");

    /** White space and space separators (the no-break spaces among them), trimmed from both ends. */
    private static final Pattern SPACE_AT_ENDS =
            Pattern.compile("^[\\p{javaWhitespace}\\p{Z}]+|[\\p{javaWhitespace}\\p{Z}]+$");

    /** Nothing visible: only white space, space separators and format characters. */
    private static final Pattern INVISIBLE = Pattern.compile("[\\p{javaWhitespace}\\p{Z}\\p{Cf}]*");

    static final int DEFAULT_PAGE_SIZE = 50;
    static final int MAX_PAGE_SIZE = 500;

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

    /**
     * One page of the orders, newest first.
     *
     * @param page which page, from 0; default 0
     * @param size orders per page, 1 to {@value #MAX_PAGE_SIZE}; default {@value #DEFAULT_PAGE_SIZE}
     * @return the page, with the total count of orders
     */
    @GetMapping
    OrderPage list(@RequestParam(required = false) String page, @RequestParam(required = false) String size) {
        return orders.page(
                wholeNumber("page", page, 0, 0, Integer.MAX_VALUE, "from 0 up (the first page is 0)"),
                wholeNumber(
                        "size",
                        size,
                        DEFAULT_PAGE_SIZE,
                        1,
                        MAX_PAGE_SIZE,
                        "from 1 to " + MAX_PAGE_SIZE + " (default " + DEFAULT_PAGE_SIZE + ")"));
    }

    /** A query parameter that must be a whole number in [min, max]; missing or empty: the default. */
    private static int wholeNumber(String name, String value, int byDefault, int min, int max, String allowed) {
        if (value == null || value.isEmpty()) {
            return byDefault;
        }
        try {
            int number = Integer.parseInt(value);
            if (number >= min && number <= max) {
                return number;
            }
        } catch (NumberFormatException e) {
            // said below
        }
        ErrorResponseException e = new ErrorResponseException(HttpStatus.BAD_REQUEST);
        e.setTitle("Bad query parameter");
        e.setDetail("Query parameter \"" + name + "\" is " + value + "; it must be a whole number " + allowed + ".");
        throw e;
    }

    private String item(Object value) {
        if (!(value instanceof String text)) {
            throw missingItem(
                    value == null
                            ? "none"
                            : value.getClass()
                                    .getSimpleName()
                                    .replace("LinkedHashMap", "an object")
                                    .replace("ArrayList", "an array"));
        }
        String item = SPACE_AT_ENDS.matcher(text).replaceAll("");
        if (INVISIBLE.matcher(item).matches()) {
            throw missingItem(text.isEmpty() ? "an empty string" : "nothing visible: " + codePoints(text, 8));
        }
        int length = item.codePointCount(0, item.length());
        if (length > properties.maxItemLength()) {
            throw badItem(
                    "Item too long",
                    "The \"item\" has " + length + " characters; at most " + properties.maxItemLength()
                            + " are allowed.");
        }
        var notText = NOT_TEXT.matcher(item);
        if (notText.find()) {
            throw badItem(
                    "Item not text",
                    "The \"item\" contains U+" + String.format("%04X", item.codePointAt(notText.start()))
                            + " at index " + item.codePointCount(0, notText.start())
                            + "; control characters and unpaired surrogates are not allowed.");
        }
        return item;
    }

    private static ErrorResponseException missingItem(String got) {
        return badItem(
                "Missing item",
                "The order needs an \"item\" that is a non-blank JSON string, for example {\"item\": \"book\"}; got "
                        + got + ".");
    }

    /** The first {@code most} code points of a text as U+XXXX, to show characters one cannot see. */
    private static String codePoints(String text, int most) {
        StringBuilder shown = new StringBuilder();
        text.codePoints()
                .limit(most)
                .forEach(c -> shown.append(shown.isEmpty() ? "" : " ").append(String.format("U+%04X", c)));
        return text.codePointCount(0, text.length()) > most ? shown + " ..." : shown.toString();
    }

    private static ErrorResponseException badItem(String title, String detail) {
        ErrorResponseException e = new ErrorResponseException(HttpStatus.BAD_REQUEST);
        e.setTitle(title);
        e.setDetail(detail);
        return e;
    }
}
