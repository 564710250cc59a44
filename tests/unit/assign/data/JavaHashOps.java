// Test-data generator for test_assign_javaorder.py (not part of kgroup; reimplements nothing).
// Applies random put / computeIfAbsent / remove operations to a java.util.HashMap<String, ..>
// created with various initial capacities (as Kafka's coordinator builds member assignments:
// `new HashMap<>(map.size())` copies, then `computeIfAbsent(topicId, ..)`) and prints the
// iteration order the JVM produces. Regenerate with:
//   javac JavaHashOps.java && java -cp . JavaHashOps > java_hash_ops.tsv   (Java 17)
// Each line: initial capacity (-1: new HashMap<>()), the operations (P key, C key, R key), the
// resulting iteration order.
import java.util.*;

public class JavaHashOps {
    public static void main(String[] args) {
        Random r = new Random(11);
        String[] pool = {"t", "topic-", "c", "x"};
        for (int t = 0; t < 80; t++) {
            int cap = r.nextInt(6) == 0 ? -1 : r.nextInt(20);
            Map<String, Integer> m = cap < 0 ? new HashMap<>() : new HashMap<>(cap);
            int n = r.nextInt(45);
            List<String> ops = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                String key = pool[r.nextInt(pool.length)] + r.nextInt(r.nextBoolean() ? 40 : 400);
                int op = r.nextInt(10);
                if (op < 4) { m.put(key, 1); ops.add("P " + key); }
                else if (op < 9) { m.computeIfAbsent(key, k -> 1); ops.add("C " + key); }
                else { m.remove(key); ops.add("R " + key); }
            }
            System.out.println(cap + "\t" + String.join(",", ops) + "\t" + String.join(" ", m.keySet()));
        }
    }
}
