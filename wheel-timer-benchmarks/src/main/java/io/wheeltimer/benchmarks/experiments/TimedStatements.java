package io.wheeltimer.benchmarks.experiments;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * A {@code DataSource} that times, on the client, the prepared statements whose SQL starts with one
 * prefix: from the call that executes one until it returns (the server has run it then: PostgreSQL's
 * driver reads the whole result unless a fetch size is set). Each timing is kept until
 * {@link #take()}, and the last such SQL for {@link #lastSql()}; everything else passes through
 * untouched. A Spring {@link DelegatingDataSource},
 * so that a transaction manager on the target is taken as managing this one too.
 */
final class TimedStatements extends DelegatingDataSource {

    private final String prefix;
    private final List<Long> nanos = new ArrayList<>();
    private volatile String lastSql;

    TimedStatements(DataSource target, String prefix) {
        super(target);
        this.prefix = prefix;
    }

    /** The timings since the last call, in nanoseconds, in the order the statements ran. */
    synchronized long[] take() {
        long[] taken = nanos.stream().mapToLong(Long::longValue).toArray();
        nanos.clear();
        return taken;
    }

    /** The SQL of the last statement timed; null before the first. */
    String lastSql() {
        return lastSql;
    }

    private synchronized void add(long elapsedNanos) {
        nanos.add(elapsedNanos);
    }

    @Override
    public Connection getConnection() throws SQLException {
        return timing(super.getConnection());
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        return timing(super.getConnection(username, password));
    }

    private Connection timing(Connection connection) {
        return proxy(Connection.class, connection, (method, args) -> {
            Object result = method.invoke(connection, args);
            if (method.getName().equals("prepareStatement")
                    && args != null
                    && args[0] instanceof String sql
                    && sql.startsWith(prefix)) {
                lastSql = sql;
                PreparedStatement statement = (PreparedStatement) result;
                return proxy(PreparedStatement.class, statement, (m, a) -> {
                    if (!m.getName().startsWith("execute")) {
                        return m.invoke(statement, a);
                    }
                    long start = System.nanoTime();
                    Object executed = m.invoke(statement, a);
                    add(System.nanoTime() - start);
                    return executed;
                });
            }
            return result;
        });
    }

    @FunctionalInterface
    private interface Call {
        Object invoke(Method method, Object[] args) throws IllegalAccessException, InvocationTargetException;
    }

    /** A proxy of {@code target} whose calls go through {@code call}, with the target's own exceptions. */
    private static <T> T proxy(Class<T> type, T target, Call call) {
        InvocationHandler handler = (proxy, method, args) -> {
            if (method.getDeclaringClass() == Object.class) {
                return switch (method.getName()) {
                    case "equals" -> proxy == args[0];
                    case "hashCode" -> System.identityHashCode(proxy);
                    default -> method.invoke(target, args);
                };
            }
            try {
                return call.invoke(method, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        };
        return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, handler));
    }
}
