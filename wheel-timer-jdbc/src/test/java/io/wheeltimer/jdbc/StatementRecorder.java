package io.wheeltimer.jdbc;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;

/**
 * A {@code DataSource} that records each prepared statement its connections run, with the values
 * bound to it, so that a test can look at (or {@code EXPLAIN}) the very statements the timer sent.
 */
final class StatementRecorder {

    /** A statement as it was run: its text and the setter calls that bound its parameters. */
    record Statement(String sql, List<Binding> bindings) {

        /** Binds the same values, in the same way, to {@code target} (a statement with the same parameters). */
        void bindTo(PreparedStatement target) throws SQLException {
            for (Binding binding : bindings) {
                try {
                    binding.setter().invoke(target, binding.arguments());
                } catch (IllegalAccessException e) {
                    throw new IllegalStateException(e);
                } catch (InvocationTargetException e) {
                    throw e.getCause() instanceof SQLException sql ? sql : new SQLException(e.getCause());
                }
            }
        }
    }

    /** One call of a {@code PreparedStatement} setter, such as {@code setLong(3, 42L)}. */
    record Binding(Method setter, Object[] arguments) {}

    private final List<Statement> statements = new CopyOnWriteArrayList<>();
    private final DataSource dataSource;

    StatementRecorder(DataSource target) {
        this.dataSource = proxy(
                DataSource.class,
                target,
                (method, args, result) ->
                        method.getName().equals("getConnection") ? connection((Connection) result) : result);
    }

    /** The recording {@code DataSource}. */
    DataSource dataSource() {
        return dataSource;
    }

    /** What was run so far, in order (a statement run several times is listed each time). */
    List<Statement> statements() {
        return List.copyOf(statements);
    }

    private Connection connection(Connection target) {
        return proxy(Connection.class, target, (method, args, result) -> {
            if (method.getName().equals("prepareStatement") && args[0] instanceof String sql) {
                return statement(sql, (PreparedStatement) result);
            }
            return result;
        });
    }

    private PreparedStatement statement(String sql, PreparedStatement target) {
        List<Binding> bindings = new ArrayList<>();
        return proxy(PreparedStatement.class, target, (method, args, result) -> {
            String name = method.getName();
            if (name.startsWith("set") && args != null && args.length >= 2 && args[0] instanceof Integer) {
                bindings.add(new Binding(method, args.clone()));
            } else if (name.equals("clearParameters")) {
                bindings.clear();
            } else if (name.startsWith("execute") && (args == null || args.length == 0)) {
                statements.add(new Statement(sql, List.copyOf(bindings)));
            }
            return result;
        });
    }

    /** What a proxy does with the result of each call it passed on. */
    private interface AfterCall {
        Object apply(Method method, Object[] args, Object result) throws Throwable;
    }

    private static <T> T proxy(Class<T> type, T target, AfterCall after) {
        return type.cast(Proxy.newProxyInstance(
                StatementRecorder.class.getClassLoader(), new Class<?>[] {type}, (p, method, args) -> {
                    Object result;
                    try {
                        result = method.invoke(target, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                    return after.apply(method, args, result);
                }));
    }
}
