package io.wheeltimer.spring.autoconfigure.durable;

import io.wheeltimer.jdbc.DurableDataCodec;
import java.lang.reflect.Type;
import java.util.Objects;
import tools.jackson.databind.json.JsonMapper;

/**
 * The data of durable timeouts as JSON, written and read by the application's Jackson
 * {@link JsonMapper} (the one Boot auto-configures, with the application's modules and settings), so
 * a record scheduled with a timeout reaches its {@code @DurableTimerTask} method as the same record.
 * A generic type ({@code List<Item>}) is read as the method declares it.
 */
final class JsonDurableDataCodec implements DurableDataCodec {

    private final JsonMapper mapper;

    JsonDurableDataCodec(JsonMapper mapper) {
        this.mapper = Objects.requireNonNull(mapper, "mapper must not be null");
    }

    @Override
    public String write(Object data) {
        return mapper.writeValueAsString(data);
    }

    @Override
    public Object read(String text, Type type) {
        return mapper.readValue(text, mapper.constructType(type));
    }

    @Override
    public String toString() {
        return "JSON by the application's JsonMapper";
    }
}
