import * as v from 'valibot'
import { type Product, ProductSchema } from '#domain/practice-data.ts'
import { http } from '#src/lib/http.ts'

/** `GET /products?practice={id}`: the products the practice sells. */
export async function listProducts(practiceId: number): Promise<Product[]> {
  return v.parse(
    v.array(ProductSchema),
    await http.get('products', { searchParams: { practice: practiceId } }).json(),
  )
}
